import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { injectable } from 'tsyringe';
import { EmptyInput, InvalidExtensionError, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { envelope, postPerRequest } from '../helpers/per-request-http';
import { RawTransport } from '../helpers/raw-transport';
import { httpServer } from '../../src/http';

const UI = 'io.modelcontextprotocol/ui';
const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const UI_SETTINGS = { mimeTypes: ['text/html;profile=mcp-app'] };
const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

@injectable()
class Probe {
  @Tool({ description: 'Tells which extensions the client declared' })
  probe(_: EmptyInput, ctx: McpContext) {
    return JSON.stringify({
      extensions: ctx.extensions,
      ui: ctx.supportsExtension(UI),
      other: ctx.supportsExtension('com.example/absent'),
    });
  }
}

@injectable()
class TaskTools {
  @Tool({ description: 'May run as a task', taskSupport: 'optional' })
  background(_: EmptyInput) {
    return 'done';
  }
}

@McpModule({ providers: [], extensions: { 'com.example/shared': { level: 1 } } })
class SharedModule {}

@McpModule({ imports: [SharedModule], providers: [Probe, TaskTools], extensions: { [UI]: UI_SETTINGS } })
class AppsModule {}

@McpModule({ providers: [Probe] })
class PlainModule {}

type Probed = { extensions: Record<string, unknown>; ui: boolean; other: boolean };
const probed = (result: Record<string, unknown> | undefined): Probed =>
  JSON.parse((result!.content as { text: string }[])[0].text) as Probed;

/** Extensions the server declares (capabilities.extensions) and those the client declares (ctx.extensions), in both eras. */
describe('extensions', () => {
  describe('declared by modules and create()', () => {
    let app: McpApplication;
    let url: string;
    beforeAll(async () => {
      app = await McpApplication.create(AppsModule, { ...quiet, extensions: { 'com.example/created': {} } });
      url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
    });
    afterAll(() => app.close());

    const declared = { [UI]: UI_SETTINGS, 'com.example/shared': { level: 1 }, 'com.example/created': {} };

    it('advertises them in a handshake initialize result, next to the handshake tasks capability (an official 1.x client reads them)', async () => {
      const client = new Client({ name: 'legacy', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const caps = client.getServerCapabilities() as Record<string, unknown>;
        expect(caps.extensions).toEqual(declared);
        expect(caps.tasks).toBeDefined();
      } finally {
        await client.close();
      }
    });

    it('advertises them in server/discover, with the tasks extension in place of the tasks capability', async () => {
      const reply = await postPerRequest(url, 'server/discover');
      const caps = reply.body.result!.capabilities as Record<string, unknown>;
      expect(caps.extensions).toEqual({ ...declared, [TASKS]: {} });
      expect(caps).not.toHaveProperty('tasks');
    });

    it('tells a 2026-07-28 handler the extensions of the request, from its _meta', async () => {
      const clientExtensions = { [UI]: UI_SETTINGS, 'org.vendor/future': { anything: [1, 2] } };
      const reply = await postPerRequest(url, 'tools/call', {
        name: 'probe',
        arguments: {},
        _meta: envelope({ [CAPS]: { extensions: clientExtensions } }),
      });
      expect(probed(reply.body.result)).toEqual({ extensions: clientExtensions, ui: true, other: false });
      const bare = await postPerRequest(url, 'tools/call', { name: 'probe', arguments: {} });
      expect(probed(bare.body.result)).toEqual({ extensions: {}, ui: false, other: false });
    });

    it('keeps the extensions a handshake client declared at initialize (unknown keys included) for its handlers', async () => {
      const initialize = (capabilities: Record<string, unknown>) => ({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const clientExtensions = { [UI]: UI_SETTINGS, 'org.vendor/future': { depth: 2 } };
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(initialize({ roots: {}, extensions: clientExtensions, 'org.vendor/unknownCap': { x: 1 } })),
      });
      const sessionId = res.headers.get('mcp-session-id')!;
      await res.text();
      const session = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      const call = await fetch(url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'probe', arguments: {} } }),
      });
      const text = await call.text();
      const frame = JSON.parse(
        text.includes('data:')
          ? text
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .pop()!
              .slice(5)
          : text,
      ) as { result: Record<string, unknown> };
      expect(probed(frame.result)).toEqual({ extensions: clientExtensions, ui: true, other: false });
    });
  });

  describe('in a stdio-like session', () => {
    it('answers initialize with the declared extensions and keeps the client capabilities whole', async () => {
      const app = await McpApplication.create(PlainModule, { ...quiet, extensions: { 'com.example/thing': { mode: 'fast' } } });
      const raw = new RawTransport();
      app.connect(raw);
      try {
        const capabilities = { extensions: { 'com.example/thing': {} }, 'org.vendor/unknownCap': { x: 1 } };
        const init = await raw.request({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
        });
        expect(init.result!.capabilities).toMatchObject({ extensions: { 'com.example/thing': { mode: 'fast' } } });
        raw.deliver({ method: 'notifications/initialized' });
        const call = await raw.request({ id: 2, method: 'tools/call', params: { name: 'probe', arguments: {} } });
        expect(probed(call.result)).toEqual({ extensions: { 'com.example/thing': {} }, ui: false, other: false });
      } finally {
        await app.close();
      }
    });
  });

  describe('off unless declared', () => {
    it('advertises no extensions in either era when none is declared and no tool runs as a task', async () => {
      const app = await McpApplication.create(PlainModule, quiet);
      const url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
      try {
        const discover = await postPerRequest(url, 'server/discover');
        expect(discover.body.result!.capabilities).not.toHaveProperty('extensions');
        const raw = new RawTransport();
        app.connect(raw);
        const init = await raw.request({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        });
        expect(init.result!.capabilities).not.toHaveProperty('extensions');
      } finally {
        await app.close();
      }
    });
  });

  describe('checked at bootstrap', () => {
    it.each([
      ['no prefix', { thing: {} }, /"thing" has no prefix/],
      ['an empty prefix label', { 'com..example/thing': {} }, /_meta key naming rules/],
      ['a label starting with a digit', { '1com.example/thing': {} }, /_meta key naming rules/],
      ['a name ending with a hyphen', { 'com.example/thing-': {} }, /_meta key naming rules/],
      ['an empty name', { 'com.example/': {} }, /_meta key naming rules/],
      ['settings that are not an object', { 'com.example/thing': true }, /settings of "com.example\/thing" must be an object/],
      ['settings that are an array', { 'com.example/thing': [] }, /settings of "com.example\/thing" must be an object/],
      ['the tasks extension, which mcpkit serves itself', { [TASKS]: {} }, /served by mcpkit itself/],
    ])('rejects %s with InvalidExtensionError', async (_what, extensions, message) => {
      const created = McpApplication.create(PlainModule, { ...quiet, extensions: extensions as never });
      await expect(created).rejects.toThrow(InvalidExtensionError);
      await expect(created).rejects.toThrow(message);
    });

    it('rejects a module whose identifier is malformed, naming the module', async () => {
      @McpModule({ providers: [], extensions: { 'no-prefix': {} } })
      class BadModule {}
      @McpModule({ imports: [BadModule], providers: [Probe] })
      class Root {}
      await expect(McpApplication.create(Root, quiet)).rejects.toThrow(/@McpModule of BadModule: "no-prefix" has no prefix/);
    });

    it('rejects two modules that declare one extension with different settings', async () => {
      @McpModule({ providers: [], extensions: { 'com.example/shared': { level: 2 } } })
      class Other {}
      @McpModule({ imports: [SharedModule, Other], providers: [Probe] })
      class Root {}
      await expect(McpApplication.create(Root, quiet)).rejects.toThrow(InvalidExtensionError);
    });
  });
});
