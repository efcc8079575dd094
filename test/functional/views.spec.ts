import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsNumber, IsString } from 'class-validator';
import {
  ApplicationOptions,
  ClassType,
  EmptyInput,
  InvalidDecoratorOptionsError,
  InvalidViewError,
  McpApplication,
  McpModule,
  MissingTextFallbackError,
  RequireScopes,
  Tool,
  UnknownViewError,
  View,
} from '../../src';
import { connect } from '../helpers/in-memory';
import { envelope, postPerRequest } from '../helpers/per-request-http';
import { httpServer } from '../../src/http';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined };
const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const HTML = '<!DOCTYPE html><html><body>weather</body></html>';
const MIME = 'text/html;profile=mcp-app';

@View({
  uri: 'ui://weather/dashboard',
  html: HTML,
  title: 'Weather dashboard',
  description: 'Current weather, drawn',
  csp: {
    connectDomains: ['https://api.weather.example', 'wss://live.weather.example:8443'],
    resourceDomains: ['https://*.cdn.example'],
    frameDomains: ['https://player.example'],
    baseUriDomains: ['https://base.example'],
  },
  permissions: { geolocation: {}, clipboardWrite: {} },
  prefersBorder: true,
  domain: 'weather.sandbox.example',
})
class Dashboard {}

@View({ uri: 'ui://weather/plain', html: () => '<html>plain</html>' })
class PlainView {}

class Weather {
  @IsString() city!: string;
  @IsNumber() celsius!: number;
}

class WeatherTools {
  @Tool({ description: 'Current weather', ui: Dashboard, output: Weather })
  weather(_: EmptyInput): Weather {
    return { city: 'Oslo', celsius: 4 };
  }

  @Tool({ ui: { view: Dashboard, visibility: ['app'], fallback: 'handler' }, _meta: { 'example/extra': 1 } })
  refresh(_: EmptyInput) {
    return 'refreshed';
  }

  @Tool({ ui: { view: PlainView, visibility: ['model'] }, output: Weather })
  plain(_: EmptyInput): Weather {
    return { city: 'Bergen', celsius: 9 };
  }

  @Tool()
  ordinary(_: EmptyInput) {
    return 'no view';
  }
}

@McpModule({ providers: [Dashboard, PlainView, WeatherTools] })
class WeatherModule {}

const DASHBOARD_UI = {
  csp: {
    connectDomains: ['https://api.weather.example', 'wss://live.weather.example:8443'],
    resourceDomains: ['https://*.cdn.example'],
    frameDomains: ['https://player.example'],
    baseUriDomains: ['https://base.example'],
  },
  permissions: { geolocation: {}, clipboardWrite: {} },
  domain: 'weather.sandbox.example',
  prefersBorder: true,
};
const TOOL_META = {
  weather: { ui: { resourceUri: 'ui://weather/dashboard', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://weather/dashboard' },
  refresh: {
    'example/extra': 1,
    ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] },
    'ui/resourceUri': 'ui://weather/dashboard',
  },
  plain: { ui: { resourceUri: 'ui://weather/plain', visibility: ['model'] }, 'ui/resourceUri': 'ui://weather/plain' },
};
const RESOURCES = [
  {
    uri: 'ui://weather/dashboard',
    name: 'Dashboard',
    title: 'Weather dashboard',
    description: 'Current weather, drawn',
    mimeType: MIME,
    _meta: { ui: DASHBOARD_UI },
  },
  { uri: 'ui://weather/plain', name: 'PlainView', mimeType: MIME },
];

type Listed = { tools: { name: string; _meta?: Record<string, unknown> }[] };
const metaByName = (list: Listed) => Object.fromEntries(list.tools.map((t) => [t.name, t._meta]));

/** What every era must show of views and the tools that name them. */
function expectViewSurface(tools: Listed, resources: unknown, dashboard: unknown, plain: unknown, call: unknown): void {
  expect(metaByName(tools)).toEqual({ ...TOOL_META, ordinary: undefined });
  expect((resources as { resources: unknown[] }).resources).toEqual(RESOURCES);
  expect((dashboard as { contents: unknown[] }).contents).toEqual([
    { uri: 'ui://weather/dashboard', mimeType: MIME, text: HTML, _meta: { ui: DASHBOARD_UI } },
  ]);
  expect((plain as { contents: unknown[] }).contents).toEqual([{ uri: 'ui://weather/plain', mimeType: MIME, text: '<html>plain</html>' }]);
  // The text fallback of a tool with a view: its output's JSON.
  expect(call).toMatchObject({
    content: [{ type: 'text', text: '{"city":"Oslo","celsius":4}' }],
    structuredContent: { city: 'Oslo', celsius: 4 },
  });
}

async function serveHttp(options: ApplicationOptions = {}): Promise<{ app: McpApplication; url: string }> {
  const app = await McpApplication.create(WeatherModule, { logger: quiet, ...options });
  const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));
  return { app, url: http.url };
}

describe('interactive views (MCP Apps)', () => {
  it('handshake session: tools carry ui.resourceUri, visibility and the flat ui/resourceUri; views are text/html;profile=mcp-app resources with _meta.ui', async () => {
    const { app, client } = await connect(WeatherModule, {}, { capabilities: UI });
    try {
      expectViewSurface(
        (await client.request('tools/list')) as Listed,
        await client.request('resources/list'),
        await client.request('resources/read', { uri: 'ui://weather/dashboard' }),
        await client.request('resources/read', { uri: 'ui://weather/plain' }),
        await client.request('tools/call', { name: 'weather', arguments: {} }),
      );
    } finally {
      await app.close();
    }
  });

  it('2026-07-28 requests over HTTP: the same fields', async () => {
    const { app, url } = await serveHttp();
    try {
      const ask = async (method: string, params: Record<string, unknown> = {}) => (await postPerRequest(url, method, params)).body.result;
      expectViewSurface(
        (await ask('tools/list')) as Listed,
        await ask('resources/list'),
        await ask('resources/read', { uri: 'ui://weather/dashboard' }),
        await ask('resources/read', { uri: 'ui://weather/plain' }),
        await ask('tools/call', { name: 'weather', arguments: {} }),
      );
    } finally {
      await app.close();
    }
  });

  it('by default every client gets the view metadata, whether it declared the extension or not', async () => {
    const { app, client } = await connect(WeatherModule);
    try {
      expect(metaByName((await client.request('tools/list')) as Listed)).toEqual({ ...TOOL_META, ordinary: undefined });
    } finally {
      await app.close();
    }
  });

  it("views.metadata 'extension-clients': handshake clients get it only when initialize declared io.modelcontextprotocol/ui", async () => {
    const options = { views: { metadata: 'extension-clients' as const } };
    const plain = await connect(WeatherModule, options);
    const declaring = await connect(WeatherModule, options, { capabilities: UI });
    try {
      expect(metaByName((await plain.client.request('tools/list')) as Listed)).toEqual({
        weather: undefined,
        refresh: { 'example/extra': 1 },
        plain: undefined,
        ordinary: undefined,
      });
      expect(metaByName((await declaring.client.request('tools/list')) as Listed)).toEqual({ ...TOOL_META, ordinary: undefined });
      // The views stay readable resources for everyone.
      expect(await plain.client.request('resources/read', { uri: 'ui://weather/plain' })).toMatchObject({ contents: [{ mimeType: MIME }] });
    } finally {
      await plain.app.close();
      await declaring.app.close();
    }
  });

  it("views.metadata 'extension-clients': 2026-07-28 clients get it only when the request's clientCapabilities declare it", async () => {
    const { app, url } = await serveHttp({ views: { metadata: 'extension-clients' } });
    try {
      const without = await postPerRequest(url, 'tools/list', { _meta: envelope() });
      expect(metaByName(without.body.result as Listed)).toEqual({
        weather: undefined,
        refresh: { 'example/extra': 1 },
        plain: undefined,
        ordinary: undefined,
      });
      const withUi = await postPerRequest(url, 'tools/list', { _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': UI }) });
      expect(metaByName(withUi.body.result as Listed)).toEqual({ ...TOOL_META, ordinary: undefined });
    } finally {
      await app.close();
    }
  });

  it('reads the HTML of a file view, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-view-'));
    const file = join(dir, 'view.html');
    writeFileSync(file, '<html>from a file</html>');
    @View({ uri: 'ui://files/view', html: { file } })
    class FileView {}
    @McpModule({ providers: [FileView] })
    class M {}
    const { app, client } = await connect(M);
    try {
      expect(await client.request('resources/read', { uri: 'ui://files/view' })).toEqual({
        contents: [{ uri: 'ui://files/view', mimeType: MIME, text: '<html>from a file</html>' }],
      });
      writeFileSync(file, '<html>changed</html>');
      expect(await client.request('resources/read', { uri: 'ui://files/view' })).toMatchObject({
        contents: [{ text: '<html>from a file</html>' }],
      });
    } finally {
      await app.close();
    }
  });
});

describe('view definition mistakes, found at bootstrap', () => {
  const create = (...providers: ClassType[]) => {
    @McpModule({ providers })
    class M {}
    return McpApplication.create(M, { logger: quiet }).catch((e: unknown) => e);
  };

  it('refuses a view whose URI is not ui://', async () => {
    @View({ uri: 'https://example.com/view', html: HTML })
    class Web {}
    const error = await create(Web);
    expect(error).toBeInstanceOf(InvalidViewError);
    expect((error as Error).message).toMatch(/@View on Web: uri "https:\/\/example.com\/view" must use the ui:\/\/ scheme/);
  });

  it.each([
    [
      'a path',
      { connectDomains: ['https://api.example.com/v1'] },
      /csp.connectDomains entry "https:\/\/api.example.com\/v1" is not an origin/,
    ],
    ['no scheme', { resourceDomains: ['cdn.example.com'] }, /csp.resourceDomains entry "cdn.example.com" is not an origin/],
    ['an unknown directive', { scriptDomains: ['https://x.example'] }, /unknown csp entry "scriptDomains"/],
  ])('refuses a CSP entry with %s', async (_, csp, message) => {
    @View({ uri: 'ui://bad/csp', html: HTML, csp: csp as never })
    class BadCsp {}
    const error = await create(BadCsp);
    expect(error).toBeInstanceOf(InvalidViewError);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a view whose html file does not exist', async () => {
    @View({ uri: 'ui://bad/file', html: { file: '/nonexistent/view.html' } })
    class Missing {}
    const error = await create(Missing);
    expect(error).toBeInstanceOf(InvalidViewError);
    expect((error as Error).message).toMatch(/html file "\/nonexistent\/view.html" does not exist/);
  });

  it('refuses a tool whose view is not listed among the providers, or is not a view', async () => {
    class Tools {
      @Tool({ ui: Dashboard, output: Weather })
      weather(_: EmptyInput) {
        return { city: 'x', celsius: 1 };
      }
    }
    const unlisted = await create(Tools);
    expect(unlisted).toBeInstanceOf(UnknownViewError);
    expect((unlisted as Error).message).toMatch(
      /@Tool on Tools.weather: ui names Dashboard, which is a @View but is not listed among the providers/,
    );

    class NotAView {}
    class Other {
      @Tool({ ui: NotAView, output: Weather })
      weather(_: EmptyInput) {
        return { city: 'x', celsius: 1 };
      }
    }
    const undecorated = await create(NotAView, Other);
    expect(undecorated).toBeInstanceOf(UnknownViewError);
    expect((undecorated as Error).message).toMatch(/ui names NotAView, which is not decorated with @View/);
  });

  it.each([[['user']], [[]], [['app', 'app']]])('refuses visibility %j', async (visibility) => {
    class Tools {
      @Tool({ ui: { view: Dashboard, visibility: visibility as never }, output: Weather })
      weather(_: EmptyInput) {
        return { city: 'x', celsius: 1 };
      }
    }
    const error = await create(Dashboard, Tools);
    expect(error).toBeInstanceOf(InvalidDecoratorOptionsError);
    expect((error as Error).message).toMatch(
      /@Tool on Tools.weather: ui.visibility must be a non-empty list of distinct "model" and "app"/,
    );
  });

  it('refuses a tool with a view and no text fallback (no output class, no fallback: handler)', async () => {
    class Tools {
      @Tool({ ui: Dashboard })
      weather(_: EmptyInput) {
        return { city: 'x', celsius: 1 };
      }
    }
    const error = await create(Dashboard, Tools);
    expect(error).toBeInstanceOf(MissingTextFallbackError);
    expect((error as Error).message).toMatch(/@Tool on Tools.weather: a tool with a view needs a text fallback/);
  });
});

describe('views are authorized like resources', () => {
  it('a view class with @RequireScopes is hidden from, and unreadable by, an unauthenticated HTTP caller', async () => {
    @RequireScopes('views:read')
    @View({ uri: 'ui://secret/view', html: HTML })
    class SecretView {}
    @McpModule({ providers: [SecretView, PlainView] })
    class M {}
    const app = await McpApplication.create(M, { logger: quiet });
    const http = await app.listen(httpServer({ port: 0, host: '127.0.0.1' }));
    try {
      const list = await postPerRequest(http.url, 'resources/list');
      expect((list.body.result as { resources: { uri: string }[] }).resources.map((r) => r.uri)).toEqual(['ui://weather/plain']);
      const read = await postPerRequest(http.url, 'resources/read', { uri: 'ui://secret/view' });
      expect(read.body.error).toBeDefined();
      expect(read.body.result).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
