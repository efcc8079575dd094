import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { example, spawnExample } from '../../test/helpers/examples';
import { sdk2 } from '../../test/helpers/sdk2';
import { serveHost, viewFrame } from '../../test/helpers/views-host';

interface Dashboard {
  summary: string;
  services: { name: string; health: string; restarts: number }[];
}

/**
 * The dashboard in a real browser: a minimal MCP Apps host page (test/fixtures/views-host: the official
 * 2.x client and ext-apps' AppBridge) calls showDashboard, renders its ui:// view in a sandboxed iframe,
 * and forwards the view's restartService call back to the example's server.
 */
describe('examples/apps-dashboard', () => {
  let server: Awaited<ReturnType<typeof spawnExample>>;
  let host: Awaited<ReturnType<typeof serveHost>>;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await spawnExample(example('apps-dashboard'));
    host = await serveHost(server.url);
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--headless=new'],
    });
    page = await browser.newPage();
    page.on('pageerror', (error) => void pageErrors.push(String(error)));
    page.on('console', (message) => void (message.type() === 'error' && pageErrors.push(message.text())));
    await page.goto(host.url);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await server?.stop();
  });

  /** The dashboard as a client without MCP Apps gets it: structuredContent, and the same JSON as text. */
  async function dashboard(): Promise<Dashboard> {
    const client = new sdk2.Client({ name: 'dashboard-observer', version: '1.0.0' });
    await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    const result = await client.callTool({ name: 'showDashboard', arguments: {} });
    await client.close();
    expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual(result.structuredContent);
    return result.structuredContent as Dashboard;
  }

  const cards = (frame: Frame) =>
    frame.$$eval('.card', (all) =>
      all.map((card) => [card.getAttribute('data-name'), card.querySelector('h2')?.textContent, !!card.querySelector('button')]),
    );

  it('renders the ui:// view in a sandboxed iframe and draws the tool result', async () => {
    expect(await page.evaluate('showTool("showDashboard")')).toEqual({
      tool: 'showDashboard',
      uri: 'ui://service-health/dashboard',
      mimeType: 'text/html;profile=mcp-app',
      visibility: ['model', 'app'],
    });
    const frame = await viewFrame(page);
    await frame.waitForSelector('.card[data-name="search"]');
    expect(await cards(frame)).toEqual([
      ['api', 'api: up', false],
      ['worker', 'worker: degraded', true],
      ['search', 'search: down', true],
    ]);
    expect(await frame.$eval('#summary', (p) => p.textContent)).toBe('2 of 3 need attention: worker degraded, search down');
  });

  it('a click on Restart calls the app-only tool through the host; the server restarts the service and the view redraws', async () => {
    expect((await dashboard()).services.find((s) => s.name === 'search')).toMatchObject({ health: 'down', restarts: 0 });
    const frame = await viewFrame(page);
    await frame.click('.card[data-name="search"] button');
    await frame.waitForFunction(`document.getElementById('status').textContent === 'Restarted search'`);

    expect((await dashboard()).services.find((s) => s.name === 'search')).toMatchObject({ health: 'up', restarts: 1 });
    expect(await cards(frame)).toEqual([
      ['api', 'api: up', false],
      ['worker', 'worker: degraded', true],
      ['search', 'search: up', false],
    ]);
  });

  it('lists restartService for the view only, and raised no error in the page, the view or the server', async () => {
    const client = new sdk2.Client({ name: 'dashboard-observer', version: '1.0.0' });
    await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.find((t) => t.name === 'restartService')?._meta?.ui).toEqual({
      resourceUri: 'ui://service-health/dashboard',
      visibility: ['app'],
    });
    expect(pageErrors).toEqual([]);
    expect(server.stderr()).not.toMatch(/error/i);
  });
});
