import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { SAMPLE_MAIN } from '../helpers/paths';
import { sdk2 } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';
import { serveHost, viewFrame } from '../helpers/views-host';

async function tableRows(frame: Frame): Promise<string[][]> {
  return frame.$$eval('tbody tr', (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')));
}

/** A real browser as an MCP Apps host: the notes sample's view renders in it and calls back the server through it. */
describe('the notes sample view in headless Chromium, hosted by ext-apps AppBridge', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  let host: Awaited<ReturnType<typeof serveHost>>;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await spawnHttpServer(SAMPLE_MAIN);
    host = await serveHost(server.url);
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--headless=new'],
    });
    page = await browser.newPage();
    page.on('pageerror', (error) => void pageErrors.push(String(error)));
    page.on('console', (message) => void (message.type() === 'error' && pageErrors.push(`${message.text()} (${message.location().url})`)));
    await page.goto(host.url);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await server?.stop();
  });

  /** What the server says now, asked by a client of its own (the official 2.x client in Node). */
  async function serverTable(): Promise<{ id: string; pinned: boolean }[]> {
    const client = new sdk2.Client({ name: 'views-observer', version: '1.0.0' });
    await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(server.url)));
    const result = await client.callTool({ name: 'showNotes', arguments: {} });
    await client.close();
    return (result.structuredContent as { notes: { id: string; pinned: boolean }[] }).notes;
  }

  it('calls the tool, reads its ui:// view, renders it sandboxed and hands it the tool result: the table shows the notes', async () => {
    const shown = await page.evaluate('showTool("showNotes")');
    expect(shown).toEqual({
      tool: 'showNotes',
      uri: 'ui://notes/table',
      mimeType: 'text/html;profile=mcp-app',
      visibility: ['model', 'app'],
    });
    expect(await page.$eval('#views iframe', (iframe) => iframe.getAttribute('sandbox'))).toBe('allow-scripts');

    const frame = await viewFrame(page);
    await frame.waitForSelector('tbody tr[data-id="note-3"]');
    expect(await tableRows(frame)).toEqual([
      ['', 'note-1', 'Welcome', 'intro'],
      ['', 'note-2', 'Groceries', 'home'],
      ['', 'note-3', 'Release plan', 'work, planning'],
    ]);
    expect(await frame.$eval('#status', (p) => p.textContent)).toBe('Click a note to pin it');
  });

  it('a click in the table calls togglePin through the host: the server pins the note and the view redraws from the result', async () => {
    expect((await serverTable()).find((n) => n.id === 'note-2')).toMatchObject({ pinned: false });
    const frame = await viewFrame(page);
    await frame.click('tbody tr[data-id="note-2"]');
    await frame.waitForFunction(`document.getElementById('status').textContent === 'Toggled the pin of note-2'`);

    expect((await serverTable()).map((n) => [n.id, n.pinned])).toEqual([
      ['note-1', false],
      ['note-2', true],
      ['note-3', false],
    ]);
    expect((await tableRows(frame))[1]).toEqual(['\u2605', 'note-2', 'Groceries', 'home']);

    await frame.click('tbody tr[data-id="note-2"]');
    await frame.waitForFunction(`document.querySelector('tbody tr[data-id="note-2"] td').textContent === ''`);
    expect((await serverTable()).find((n) => n.id === 'note-2')).toMatchObject({ pinned: false });
  });

  it('raised no error in the host page or the view', () => {
    expect(pageErrors).toEqual([]);
    expect(server.stderr()).not.toMatch(/error/i);
  });
});
