import { request } from 'node:http';
import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpModule, Tool } from '../../../src';
import type { HttpOptions } from '../../../src/http';
import { EventStore, InMemoryTaskStore } from '../../../src/stores';
import { httpServer } from '../../../src/http';

@injectable()
class ReadyTools {
  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }
}

@McpModule({ providers: [ReadyTools], server: { name: 'readiness', version: '1.0.0' } })
class ReadyModule {}

/** An event store whose probe fails while `down`, as one whose backend went away. */
class ProbedEventStore implements EventStore {
  down = false;
  async storeEvent(_s: string, streamId: string): Promise<string> {
    return `${streamId}.1`;
  }
  async eventsAfter() {
    return undefined;
  }
  async clearSession(): Promise<void> {}
  async ready(): Promise<void> {
    if (this.down) throw new Error('disk on fire');
  }
}

const apps: McpApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function serve(options: HttpOptions, taskStore?: InMemoryTaskStore) {
  const app = await McpApplication.create(ReadyModule, {
    taskStore,
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
  });
  apps.push(app);
  const { url } = await app.listen(httpServer({ port: 0, ...options }));
  const base = new URL(url);
  // node:http, not fetch: fetch always sends the Host of the URL.
  const get = (path: string, host?: string) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request({ host: base.hostname, port: base.port, path, headers: host ? { host } : {} }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: (text.startsWith('{') ? JSON.parse(text) : { text }) as Record<string, unknown> }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  return { get, port: base.port };
}

describe('HTTP health and readiness endpoints', () => {
  it('answers /ready with 200 and every in-memory store ready, and keeps /health', async () => {
    const { get } = await serve({});
    expect(await get('/ready')).toEqual({
      status: 200,
      body: { status: 'ready', stores: { taskStore: { status: 'ready' }, eventStore: { status: 'ready' } } },
    });
    expect((await get('/health')).body).toEqual({ status: 'ok', sessions: 0 });
  });

  it('answers 503 naming the store whose probe fails, and 200 again once it recovers', async () => {
    const events = new ProbedEventStore();
    const { get } = await serve({ eventStore: events });
    events.down = true;
    expect(await get('/ready')).toEqual({
      status: 503,
      body: { status: 'not ready', stores: { taskStore: { status: 'ready' }, eventStore: { status: 'not ready', error: 'disk on fire' } } },
    });
    events.down = false;
    expect((await get('/ready')).status).toBe(200);
  });

  it('probes the task store too', async () => {
    const tasks = new InMemoryTaskStore();
    tasks.ready = async () => {
      throw new Error('tasks gone');
    };
    const { get } = await serve({}, tasks);
    const { status, body } = await get('/ready');
    expect(status).toBe(503);
    expect(body.stores).toMatchObject({ taskStore: { status: 'not ready', error: 'tasks gone' } });
  });

  it('tells a foreign host the status only (a public bind, where the Host check is off)', async () => {
    const events = new ProbedEventStore();
    events.down = true;
    const { get, port } = await serve({ eventStore: events, dnsRebindingProtection: false });
    expect(await get('/ready', `mcp.example.com:${port}`)).toEqual({ status: 503, body: { status: 'not ready' } });
    expect((await get('/ready', `localhost:${port}`)).body.stores).toBeDefined();
    events.down = false;
    expect(await get('/ready', `mcp.example.com:${port}`)).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('tells a foreign host the status only with the Host check on, and can be turned off', async () => {
    const { get, port } = await serve({});
    expect(await get('/ready', `evil.example:${port}`)).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await get('/ready', `localhost:${port}`)).body.stores).toBeDefined();
    // /health keeps refusing a foreign host outright.
    expect((await get('/health', `evil.example:${port}`)).status).toBe(403);
    const off = await serve({ readyPath: null });
    expect((await off.get('/ready')).status).toBe(404);
  });
});
