import { EventEmitter } from 'node:events';
import { InMemoryEventStore, StorageUnavailableError, type EventStore } from '../../../../src/stores';
import type { JsonRpcMessage } from '../../../../src';
import { parseSse } from '../../../helpers/http-app';
import type { HttpExchange, SseSink } from '../../../../src/transports/http/http-exchange';
import { type ChannelContext, StreamChannel } from '../../../../src/transports/http/stream-channel';

/** Just enough of an HttpExchange for SSE: records what is written. */
class FakeResponse extends EventEmitter {
  status?: number;
  headers?: Record<string, string>;
  body = '';
  ended = false;
  openStream(headers: Record<string, string>): SseSink {
    this.status = 200;
    this.headers = headers;
    return { write: (chunk) => this.write(chunk), end: () => this.end(), onClose: (listener) => void this.on('close', listener) };
  }
  write(chunk: string) {
    this.body += chunk;
    return true;
  }
  end() {
    this.ended = true;
    this.emit('close');
  }
  get messages(): JsonRpcMessage[] {
    return parseSse(this.body)
      .filter((e) => e.data)
      .map((e) => JSON.parse(e.data) as JsonRpcMessage);
  }
  get ids(): (string | undefined)[] {
    return parseSse(this.body).map((e) => e.id);
  }
}

const res = () => new FakeResponse();
const asRes = (r: FakeResponse) => r as unknown as HttpExchange;
const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } });
const result = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, result: {} });

function context(events?: EventStore, extra: Partial<ChannelContext> = {}) {
  const logged: string[] = [];
  const ctx: ChannelContext = {
    store: events ? { sessionId: 's1', events } : undefined,
    retryMs: 500,
    headers: { 'Mcp-Session-Id': 's1' },
    track: () => undefined,
    logError: (message) => void logged.push(message),
    ...extra,
  };
  return { ctx, logged };
}

describe('StreamChannel', () => {
  it('stays pending until something is sent, then upgrades to SSE with a priming event and stored ids', async () => {
    const store = new InMemoryEventStore();
    const r = res();
    const channel = new StreamChannel('r1', context(store).ctx, asRes(r), 1);
    expect(channel.state).toBe('pending');
    await channel.send(note(1));
    expect(channel.state).toBe('sse');
    expect(r.status).toBe(200);
    expect(r.headers).toMatchObject({ 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': 's1' });
    const [prime, first] = parseSse(r.body);
    expect(prime).toMatchObject({ data: '', retry: 500 });
    expect(first.id).toMatch(/^r1\./);
    await channel.finish(result(1));
    expect(channel.state).toBe('done');
    expect(r.ended).toBe(true);
    expect(r.messages).toEqual([note(1), result(1)]);
    // Everything written is stored, then the end marker: a resume after the priming event replays it all and ends.
    expect((await store.eventsAfter('s1', prime.id!))?.events.map((e) => e.message)).toEqual([note(1), result(1), null]);
  });

  it('works with a store that only implements storeEvent (storeSerialized is optional)', async () => {
    const inner = new InMemoryEventStore();
    const plain: EventStore = {
      storeEvent: (...a) => inner.storeEvent(...a),
      eventsAfter: (...a) => inner.eventsAfter(...a),
      clearSession: (id) => inner.clearSession(id),
    };
    const r = res();
    const channel = new StreamChannel('r1', context(plain).ctx, asRes(r), 1);
    await channel.send(note(1));
    await channel.finish(result(1));
    const [prime] = parseSse(r.body);
    expect(r.messages).toEqual([note(1), result(1)]);
    expect((await plain.eventsAfter('s1', prime.id!))?.events.map((e) => e.message)).toEqual([note(1), result(1), null]);
  });

  it('writes no ids and no priming event without a store (stateless)', async () => {
    const r = res();
    const channel = new StreamChannel('r1', context().ctx, asRes(r), 1);
    await channel.send(note(1));
    await channel.finish(result(1));
    expect(r.ids).toEqual([undefined, undefined]);
    expect(r.messages).toEqual([note(1), result(1)]);
  });

  it('ends a request stream whose store fails with a -32603 error for the request, logged once, and never rejects', async () => {
    const store = new InMemoryEventStore();
    const r = res();
    const { ctx, logged } = context(store);
    const channel = new StreamChannel('r1', ctx, asRes(r), 'req-7');
    await channel.send(note(1));
    store.storeEvent = store.storeSerialized = () => Promise.reject(new Error('store down'));
    await expect(channel.send(note(2))).resolves.toBeUndefined();
    await expect(channel.send(note(3))).resolves.toBeUndefined();
    await expect(channel.finish(result(7))).resolves.toBeUndefined();
    expect(channel.state).toBe('done');
    expect(r.ended).toBe(true);
    expect(r.messages).toEqual([
      note(1),
      { jsonrpc: '2.0', id: 'req-7', error: { code: -32603, message: 'The event store is unavailable' } },
    ]);
    expect(logged).toEqual([expect.stringContaining('r1 of session s1 ended: The event store is unavailable')]);
  });

  it('passes on the message of a store error meant for clients (StorageUnavailableError)', async () => {
    const r = res();
    const failing = new InMemoryEventStore();
    failing.storeEvent = failing.storeSerialized = () =>
      Promise.reject(new StorageUnavailableError('The event store', new Error('ECONNREFUSED')));
    const channel = new StreamChannel('r1', context(failing).ctx, asRes(r), 3);
    await channel.send(note(1));
    expect(r.messages).toEqual([{ jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'The event store is unavailable' } }]);
  });

  it('lets the standalone stream recover on the next connection after a store failure', async () => {
    const store = new InMemoryEventStore();
    const real = { storeEvent: store.storeEvent.bind(store), storeSerialized: store.storeSerialized.bind(store) };
    let down = true;
    store.storeEvent = (...args) => (down ? Promise.reject(new Error('blip')) : real.storeEvent(...args));
    store.storeSerialized = (...args) => (down ? Promise.reject(new Error('blip')) : real.storeSerialized(...args));
    const { ctx, logged } = context(store);
    const channel = new StreamChannel('g', ctx);
    const first = res();
    await channel.open(asRes(first));
    expect(first.ended).toBe(true);
    expect(first.messages).toEqual([]); // no request to answer: the connection just closes
    await channel.send(note(1)); // dropped while broken, not logged again
    expect(logged).toHaveLength(1);
    down = false;
    const second = res();
    await channel.open(asRes(second));
    await channel.send(note(2));
    expect(second.ended).toBe(false);
    expect(second.messages).toEqual([note(2)]);
  });

  it('closes the connection without ending the stream, and resumes it: replay, then live', async () => {
    const store = new InMemoryEventStore();
    const first = res();
    const channel = new StreamChannel('r1', context(store).ctx, asRes(first), 1);
    await channel.send(note(1));
    const lastSeen = parseSse(first.body)[1].id!;
    await channel.closeConnection();
    expect(first.ended).toBe(true);
    expect(channel.state).toBe('sse');
    await channel.send(note(2)); // stored while nobody listens
    const second = res();
    await channel.resume(asRes(second), async () => (await store.eventsAfter('s1', lastSeen))!.events);
    await channel.finish(result(1));
    expect(second.messages).toEqual([note(2), result(1)]);
    expect(second.ended).toBe(true);
  });

  it('ends a resumed stream at once when the replay holds the end marker stored after its final response', async () => {
    const store = new InMemoryEventStore();
    const first = res();
    const live = new StreamChannel('r1', context(store).ctx, asRes(first), 1);
    await live.send(note(1));
    await live.finish(result(1));
    const events = (await store.eventsAfter('s1', parseSse(first.body)[0].id!))!.events;
    expect(events.map((e) => e.message)).toEqual([note(1), result(1), null]);
    // Another instance follows the same stream from storage: it learns the end from the marker.
    const channel = new StreamChannel('r1', context(store).ctx);
    const r = res();
    await channel.resume(asRes(r), async () => events);
    expect(r.messages).toEqual([note(1), result(1)]);
    expect(r.ids).toEqual(['r1.2', 'r1.3']);
    expect(r.ended).toBe(true);
  });

  it('hands a message to another instance when its client is not connected here', async () => {
    const published: [string, string | undefined, JsonRpcMessage, boolean][] = [];
    const { ctx } = context(new InMemoryEventStore(), {
      publish: async (streamId, eventId, message, final) => void published.push([streamId, eventId, message, final]),
    });
    const channel = new StreamChannel('r4', ctx);
    await channel.send(note(9));
    await channel.finish(result(9));
    expect(published).toEqual([
      ['r4', expect.stringMatching(/^r4\./), note(9), false],
      ['r4', expect.stringMatching(/^r4\./), result(9), true],
    ]);
  });

  it('does not end a stream on a response alone: only the session says which response is final', async () => {
    const channel = new StreamChannel('r1', context(new InMemoryEventStore()).ctx);
    const r = res();
    await channel.resume(asRes(r), async () => [{ id: 'r1.2', message: result(1) }]);
    await channel.deliverRemote('r1.3', result(2), false);
    expect(channel.state).toBe('sse');
    expect(r.ended).toBe(false);
    await channel.deliverRemote('r1.4', result(3), true);
    expect(channel.state).toBe('done');
    expect(r.ended).toBe(true);
  });

  it('writes a message delivered by another instance once, even when the replay already wrote it', async () => {
    const channel = new StreamChannel('r1', context(new InMemoryEventStore()).ctx);
    const r = res();
    await channel.resume(asRes(r), async () => [{ id: 'r1.2', message: note(1) }]);
    await channel.deliverRemote('r1.2', note(1), false);
    await channel.deliverRemote('r1.3', result(1), true);
    expect(r.messages).toEqual([note(1), result(1)]);
    expect(channel.state).toBe('done');
    expect(r.ended).toBe(true);
  });
});
