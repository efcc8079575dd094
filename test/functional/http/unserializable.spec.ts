import request from 'supertest';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Resource, Tool } from '../../../src';
import { ACCEPT_BOTH, initializeBody } from '../../helpers/http-app';
import { httpTransport } from '../../../src/http';
import type { RequestListener } from '../../../src/http';

@injectable()
class Awkward {
  @Tool({ description: 'Answers' })
  quick(_: EmptyInput) {
    return 'quick';
  }

  /** Returns contents that pass through as they are and cannot be serialized. */
  @Resource({ uri: 'test://cyclic', mimeType: 'text/plain' })
  cyclic() {
    const contents: Record<string, unknown> = { uri: 'test://cyclic', text: 'x' };
    contents.self = contents;
    return { contents: [contents] };
  }
}

@McpModule({ providers: [Awkward], server: { name: 'awkward', version: '1.0.0' } })
class AwkwardModule {}

/** Every request with an id gets a JSON-RPC answer over HTTP, even when its answer cannot be serialized. */
describe('HTTP answers that cannot be serialized', () => {
  let app: McpApplication;
  let callback: RequestListener;
  let sessionId: string;
  const logged: string[] = [];

  beforeAll(async () => {
    app = await McpApplication.create(AwkwardModule, {
      logger: { error: (m) => logged.push(m), warn: (m) => logged.push(m), info: () => undefined },
    });
    callback = httpTransport(app, {}).callback();
    const res = await request(callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
    sessionId = res.headers['mcp-session-id'];
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  });
  afterAll(() => app.close());

  function post(body: string) {
    return request(callback)
      .post('/mcp')
      .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'Mcp-Session-Id': sessionId })
      .send(body);
  }

  it('answers a 10,000-deep cursor with a JSON-RPC -32602 error, not a text 500', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const res = await post(`{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":{"cursor":${deep}}}`);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 'deep', error: { code: -32602 } });
    expect(res.text.length).toBeLessThan(500);
  });

  it('answers a result that cannot be serialized with a JSON-RPC -32603 error for the same id', async () => {
    const res = await post('{"jsonrpc":"2.0","id":"cyc","method":"resources/read","params":{"uri":"test://cyclic"}}');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'cyc',
      error: { code: -32603, message: expect.stringMatching(/could not be serialized/) },
    });
    const again = await post('{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"quick","arguments":{}}}');
    expect(again.body).toMatchObject({ id: 'q', result: { content: [{ text: 'quick' }] } });
  });
});
