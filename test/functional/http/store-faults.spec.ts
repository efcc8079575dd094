import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../../src';
import type { HttpOptions } from '../../../src/http';
import { EventStore } from '../../../src/stores';
import type { JsonRpcMessage } from '../../../src';
import { injectable } from 'tsyringe';
import { ACCEPT_BOTH, initializeBody, parseSse } from '../../helpers/http-app';
import { httpServer } from '../../../src/http';
import { deferred } from '../../helpers/wait-for';

@injectable()
class StoreFaultTools {
  @Tool({ description: 'Reports progress, then answers' })
  async progressing(_: EmptyInput, ctx: McpContext) {
    await ctx.log.info('working');
    return 'done';
  }

  /** Opened by the test: `lingering` runs on after its stream broke until then. */
  static readonly gate = deferred();

  @Tool({ description: 'Logs, then answers once the test opens the gate' })
  async lingering(_: EmptyInput, ctx: McpContext) {
    await ctx.log.info('working');
    await StoreFaultTools.gate.promise;
    return 'late';
  }

  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }
}

@McpModule({ providers: [StoreFaultTools], server: { name: 'store-faults', version: '1.0.0' } })
class StoreFaultModule {}

/** An event store whose writes fail while `down`, as a store whose backend went away does. */
class BrokenEventStore implements EventStore {
  down = false;
  private n = 0;
  async storeEvent(_session: string, streamId: string, _message?: JsonRpcMessage | null): Promise<string> {
    if (this.down) throw new Error('disk on fire');
    return `${streamId}.${++this.n}`;
  }
  async eventsAfter() {
    return undefined;
  }
  async clearSession(): Promise<void> {}
}

async function serve(options: HttpOptions) {
  const errors: string[] = [];
  const app = await McpApplication.create(StoreFaultModule, {
    logger: { error: (message) => void errors.push(message), warn: () => undefined, info: () => undefined },
  });
  const { url } = await app.listen(httpServer({ port: 0, ...options }));
  const post = async (body: unknown, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      body: JSON.stringify(body),
    });
  const session = async () => {
    const res = await post(initializeBody());
    await res.text();
    return res.headers.get('mcp-session-id')!;
  };
  return { app, errors, post, session };
}

/** The last JSON-RPC message of an answer, JSON or SSE. */
async function lastMessage(res: Response): Promise<unknown> {
  const body = await res.text();
  if (res.headers.get('content-type') !== 'text/event-stream') return JSON.parse(body);
  const events = parseSse(body).filter((e) => e.data);
  return JSON.parse(events.at(-1)!.data);
}

/** A store that fails while an answer streams ends that request with an error, never the process. */
describe('HTTP transport with a failing event store', () => {
  it.each([
    ['an answer upgraded to SSE', 'auto' as const, 'progressing'],
    ['responseMode sse', 'sse' as const, 'quick'],
  ])('ends %s with a -32603 error naming the store, logs it once, and serves others', async (_label, responseMode, tool) => {
    const store = new BrokenEventStore();
    const env = await serve({ eventStore: store, responseMode });
    try {
      const id = await env.session();
      store.down = true;
      const res = await env.post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: tool, arguments: {} } }, id);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      expect(await lastMessage(res)).toEqual({
        jsonrpc: '2.0',
        id: 5,
        error: { code: -32603, message: expect.stringMatching(/event store is unavailable/i) },
      });
      expect(env.errors.filter((m) => /event store/i.test(m))).toHaveLength(1);
      store.down = false;

      const other = await env.session();
      const ping = await env.post({ jsonrpc: '2.0', id: 6, method: 'ping' }, other);
      expect(await lastMessage(ping)).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
    } finally {
      await env.app.close();
    }
  });

  it('refuses a request reusing the id of one whose stream broke, on its own answer, while the first still runs', async () => {
    const store = new BrokenEventStore();
    const env = await serve({ eventStore: store, responseMode: 'sse' });
    try {
      const id = await env.session();
      store.down = true;
      const res = await env.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'lingering', arguments: {} } }, id);
      expect(await lastMessage(res)).toMatchObject({ id: 7, error: { code: -32603 } });
      store.down = false;
      const again = await env.post({ jsonrpc: '2.0', id: 7, method: 'ping' }, id);
      expect(again.status).toBe(200);
      expect(await lastMessage(again)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Request id 7 is already in use' },
      });
    } finally {
      StoreFaultTools.gate.resolve();
      await env.app.close();
    }
  });

  it('refuses a request reusing the id of one whose answer is still being stored, and the first ends whole', async () => {
    const storing = deferred();
    const stored = deferred();
    /** Holds the write of request 8's response: its handler is done, its stream is not. */
    class SlowAnswerStore extends BrokenEventStore {
      override async storeEvent(session: string, streamId: string, message: JsonRpcMessage | null): Promise<string> {
        if (message && 'result' in message && message.id === 8) {
          storing.resolve();
          await stored.promise;
        }
        return super.storeEvent(session, streamId);
      }
    }
    const env = await serve({ eventStore: new SlowAnswerStore() });
    try {
      const id = await env.session();
      const first = env.post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'progressing', arguments: {} } }, id);
      await storing.promise;
      const again = await env.post({ jsonrpc: '2.0', id: 8, method: 'ping' }, id);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32600, message: 'Request id 8 is already in use' } });
      stored.resolve();
      expect(await lastMessage(await first)).toEqual({ jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'done' }] } });
    } finally {
      stored.resolve();
      await env.app.close();
    }
  });
});
