import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { extname, join, normalize } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { cleanEnv, run } from '../helpers/cli';
import { codeBlocks, compileBlocks, documentationFiles } from '../helpers/docs-blocks';
import { ROOT } from '../helpers/paths';

/**
 * The documentation as a reader gets it: `npm run docs` builds the site (TypeDoc's API reference and the
 * VitePress guides), every TypeScript block of the README and the guides compiles against mcpkit's
 * types, and the built site, served from loopback and opened in Chromium, has no broken internal link
 * and finds a public name through its search box.
 */
jest.setTimeout(300_000);

const SITE = join(ROOT, 'docs', '.vitepress', 'dist');
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

let server: Server;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  const built = await run('npm', ['run', '-s', 'docs'], { env: cleanEnv(), timeoutMs: 280_000 });
  if (built.code !== 0) throw new Error(`npm run docs failed:\n${built.stdout}\n${built.stderr}`);
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = siteFile(path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/html' }).end(readFileSync(join(SITE, '404.html')));
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless=new'],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** The built file a path names, as a static host serves VitePress's output (`/guide/tools` is guide/tools.html). */
function siteFile(path: string): string | undefined {
  const base = normalize(join(SITE, path));
  if (!base.startsWith(SITE)) return undefined;
  for (const candidate of [base, `${base}.html`, join(base, 'index.html')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The search box's results for `query`, as the paths of the pages they open, best first. */
async function search(query: string): Promise<string[]> {
  const page = await browser.newPage();
  await page.goto(`${origin}/guide/getting-started.html`, { waitUntil: 'load' });
  await page.click('button.DocSearch-Button');
  await page.waitForSelector('#localsearch-input');
  await page.type('#localsearch-input', query);
  // The box searches as the reader types: read the results once they stopped changing.
  const read = () => page.$$eval('.results .result', (as) => as.map((a) => new URL((a as unknown as { href: string }).href).pathname));
  let results = await read();
  for (let stable = 0; stable < 5 || results.length === 0;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await read();
    stable = now.join() === results.join() ? stable + 1 : 0;
    results = now;
  }
  await page.close();
  return results;
}

describe('the documentation', () => {
  it('compiles the TypeScript blocks of the README, CONTRIBUTING.md and the guides, fragments aside, which stay few', async () => {
    const blocks = documentationFiles().flatMap(codeBlocks);
    const compiled = blocks.filter((b) => !b.fragment);
    expect(compiled.length).toBeGreaterThan(blocks.length * 0.75);
    expect(await compileBlocks(compiled)).toBe('');
  });

  it('says whether mcpkit is on the npm registry in one place, getting-started, and says what the registry says', async () => {
    const view = await run('npm', ['view', 'mcpkit', 'version'], { env: cleanEnv(), timeoutMs: 60_000 });
    const published = view.code === 0;
    if (!published) expect(view.stdout + view.stderr).toContain('404');
    const guide = readFileSync(join(ROOT, 'docs', 'guide', 'getting-started.md'), 'utf8');
    const install = guide.slice(guide.indexOf('## Install'), guide.indexOf('\n## ', guide.indexOf('## Install') + 1));
    expect(install.includes('not on the npm registry yet')).toBe(!published);
    expect(guide).not.toMatch(/published (as `mcpkit` )?on npm/);
    // No other page tells how to install it: they link to getting-started's Install.
    const installCommand = /^\s*npm (install|i) mcpkit\b/m;
    const others = documentationFiles().filter((file) => !file.endsWith(join('guide', 'getting-started.md')));
    expect(others.filter((file) => installCommand.test(readFileSync(file, 'utf8')))).toEqual([]);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/guide/getting-started.md#install)');
  });

  it('has a guide for each topic, and a reference page for each entry point', () => {
    const topics = [
      'tools',
      'resources',
      'prompts',
      'completion',
      'context',
      'input-classes',
      'errors',
      'tasks',
      'skills',
      'eras',
      'tool-search',
    ];
    topics.push('authorization', 'apps', 'observability', 'scaling-out', 'runtime-servers', 'testing', 'cli', 'deployment');
    for (const topic of topics) expect(siteFile(`/guide/${topic}`)).toBeDefined();
    for (const entry of ['mcpkit', 'mcpkit/auth', 'mcpkit/client', 'mcpkit/stores', 'mcpkit/testing', 'mcpkit/redis']) {
      expect(siteFile(`/api/${entry}`)).toBeDefined();
    }
  });

  it('links nothing that is missing: every internal link of every page reached from the home page loads, and its anchor exists', async () => {
    const ids = new Map<string, Set<string>>();
    const links: { from: string; to: URL }[] = [];
    const queue = ['/'];
    const seen = new Set(queue);
    let busy = 0;
    const visit = async (page: Page, path: string) => {
      // VitePress renders each page's HTML at build time: its ids and links are there before any script runs.
      const response = await page.goto(origin + path, { waitUntil: 'domcontentloaded' });
      if (response?.status() !== 200) return; // reported below, with the page that links here
      ids.set(path, new Set(await page.$$eval('[id]', (elements) => elements.map((e) => e.id))));
      const hrefs = await page.$$eval('a[href]', (anchors) => anchors.map((a) => (a as unknown as { href: string }).href));
      for (const href of hrefs) {
        const to = new URL(href);
        if (to.origin !== origin) continue;
        links.push({ from: path, to });
        if (!seen.has(to.pathname)) {
          seen.add(to.pathname);
          queue.push(to.pathname);
        }
      }
    };
    // Four tabs take pages from one queue until it is empty and no tab can add to it.
    const tab = async () => {
      const page = await browser.newPage();
      // What the crawl reads is in the HTML as built: without scripts, no page spends the cores on hydrating.
      await page.setJavaScriptEnabled(false);
      while (queue.length > 0 || busy > 0) {
        const path = queue.shift();
        if (path === undefined) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          continue;
        }
        busy++;
        await visit(page, path).finally(() => busy--);
      }
      await page.close();
    };
    await Promise.all([tab(), tab(), tab(), tab()]);
    const broken: string[] = [];
    for (const { from, to } of links) {
      const anchors = ids.get(to.pathname);
      if (!anchors) broken.push(`${from} -> ${to.pathname} (not found)`);
      else if (to.hash && !anchors.has(decodeURIComponent(to.hash.slice(1))))
        broken.push(`${from} -> ${to.pathname}${to.hash} (no such anchor)`);
    }
    expect(broken).toEqual([]);
    expect(ids.size).toBeGreaterThan(20);
    // Every example of the repository is a page reached from the guides, and each API class has its own page.
    const examples = readdirSync(join(ROOT, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(examples.length).toBeGreaterThanOrEqual(5);
    const pages = ['/guide/deployment.html', '/api/mcpkit/', '/api/mcpkit/classes/McpApplication.html', '/examples/'];
    pages.push(...examples.map((e) => `/examples/${e.name}.html`));
    expect([...ids.keys()]).toEqual(expect.arrayContaining(pages));
    expect(
      links.filter(({ from, to }) => from === '/guide/getting-started.html' && to.pathname.startsWith('/examples/')).length,
    ).toBeGreaterThanOrEqual(5);
  }, 600_000); // a page per API class: some 300 pages to crawl

  it('finds a public name through the search box', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/guide/getting-started.html`, { waitUntil: 'load' });
    await page.click('button.DocSearch-Button');
    await page.waitForSelector('#localsearch-input');
    await page.type('#localsearch-input', 'McpApplication');
    await page.waitForFunction(`[...document.querySelectorAll('.results .result')].some((r) => r.textContent.includes('McpApplication'))`);
    const first = await page.$eval('.results .result', (a) => (a as unknown as { href: string }).href);
    expect(new URL(first).origin).toBe(origin);
    await page.close();
  });

  it.each(['elicitation', 'tasks', 'sampling'])(
    'lists a guide first when searching %s, before the API members of that name',
    async (query) => {
      const results = await search(query);
      expect(results.length).toBeGreaterThan(1);
      expect(results[0]).toMatch(/^\/guide\//);
      expect(results.some((path) => path.startsWith('/api/'))).toBe(true);
    },
  );

  it("opens McpApplication's reference on its own page, its members grouped by purpose, without internal names", async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/api/mcpkit/classes/McpApplication.html`, { waitUntil: 'domcontentloaded' });
    const headings = await page.$$eval('.vp-doc h2', (hs) => hs.map((h) => (h.textContent ?? '').replace(/\W+$/, '').trim()));
    expect(headings).toEqual(['Creating', 'Serving', 'Defining', 'Services', 'Events', 'Closing']);
    const text = await page.$eval('.vp-doc', (e) => e.textContent ?? '');
    for (const internal of ['Definitions', 'Composition', 'Serving(', 'Parts', 'registryOf', 'internalsOf'])
      expect(text).not.toContain(internal);
    await page.close();
  });

  it.each([
    ['compose', ['mount()', 'proxy()']],
    ['http', ['httpTransport()']],
    ['stdio', ['stdio()']],
    ['fetch', ['fetchHandler()', 'lambdaHandler()']],
  ])('documents the entry point mcpkit/%s on a page of its own', async (entry, functions) => {
    const page = await browser.newPage();
    const response = await page.goto(`${origin}/api/mcpkit/${entry}/`, { waitUntil: 'domcontentloaded' });
    expect(response?.status()).toBe(200);
    const headings = await page.$$eval('.vp-doc h3', (hs) => hs.map((h) => (h.textContent ?? '').replace(/[^\w()]+$/, '').trim()));
    expect(headings).toEqual(expect.arrayContaining(functions));
    await page.close();
  });

  it('previews the built site on loopback only (npm run docs:preview)', async () => {
    const preview = spawn('npm', ['run', '-s', 'docs:preview', '--', '--port', '0'], {
      cwd: ROOT,
      env: cleanEnv({ NO_COLOR: '1' }),
      detached: true,
    });
    try {
      let out = '';
      preview.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const url = await new Promise<URL>((resolve, reject) => {
        const poll = setInterval(() => {
          const found = /https?:\/\/[^\s]+/.exec(out);
          if (found) {
            clearInterval(poll);
            resolve(new URL(found[0]));
          }
        }, 50);
        preview.on('exit', (code) => reject(new Error(`docs:preview exited (${code}): ${out}`)));
      });
      expect(url.hostname).toBe('127.0.0.1');
      expect((await fetch(new URL('/guide/getting-started.html', url))).status).toBe(200);
      // An address of this machine other than loopback: nothing answers there.
      const others = Object.values(networkInterfaces())
        .flatMap((addresses) => addresses ?? [])
        .filter((a) => !a.internal);
      for (const { address, family } of others) {
        const refused = await new Promise<boolean>((resolve) => {
          const socket = connect({ host: address, port: Number(url.port), family: family === 'IPv6' ? 6 : 4 });
          socket.once('connect', () => (socket.destroy(), resolve(false)));
          socket.once('error', () => resolve(true));
        });
        expect({ address, refused }).toEqual({ address, refused: true });
      }
    } finally {
      process.kill(-preview.pid!, 'SIGTERM');
    }
  });
});
