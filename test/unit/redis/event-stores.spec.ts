import { InMemoryEventStore, type EventStore } from '../../../src/stores';
import { RedisEventStore } from '../../../src/redis';
import { PrivateRedis } from '../../helpers/redis-server';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await PrivateRedis.start();
});
afterAll(() => redis.stop());

const ping = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'ping' });

describe.each([
  ['InMemoryEventStore', () => new InMemoryEventStore({ maxEventsPerStream: 5 })],
  ['RedisEventStore', () => new RedisEventStore(redis.url, { keyPrefix: `ev${Math.random()}:`, maxEventsPerStream: 5 })],
])('%s', (_name, make: () => EventStore & { close?: () => Promise<void> }) => {
  let store: EventStore & { close?: () => Promise<void> };
  beforeEach(() => {
    store = make();
  });
  afterEach(async () => {
    await store.close?.();
  });

  it('gives ids unique in the session that name their stream, and replays one stream after an id', async () => {
    const prime = await store.storeEvent('s1', 'r1', null);
    const e1 = await store.storeEvent('s1', 'r1', ping(1));
    await store.storeEvent('s1', 'g', ping(99));
    const e2 = await store.storeEvent('s1', 'r1', ping(2));
    expect(new Set([prime, e1, e2]).size).toBe(3);
    expect(prime.startsWith('r1.')).toBe(true);
    expect(await store.eventsAfter('s1', prime)).toEqual({
      streamId: 'r1',
      events: [
        { id: e1, message: ping(1) },
        { id: e2, message: ping(2) },
      ],
    });
    expect(await store.eventsAfter('s1', e2)).toEqual({ streamId: 'r1', events: [] });
  });

  it('stores a response that cannot be serialized, and replays an answer for the same id', async () => {
    const result: Record<string, unknown> = { content: [] };
    result.self = result;
    const prime = await store.storeEvent('s1', 'r9', null);
    await expect(store.storeEvent('s1', 'r9', { jsonrpc: '2.0', id: 'c', result })).resolves.toEqual(expect.any(String));
    const replayed = await store.eventsAfter('s1', prime);
    expect(replayed?.events.map((e) => (e.message as { id?: unknown }).id)).toEqual(['c']);
  });

  it('never replays across sessions, forgets unknown ids, and clears a session', async () => {
    const id = await store.storeEvent('s1', 'g', ping(1));
    expect(await store.eventsAfter('s2', id)).toBeUndefined();
    expect(await store.eventsAfter('s1', 'g.999')).toBeUndefined();
    expect(await store.eventsAfter('s1', 'garbage')).toBeUndefined();
    await store.clearSession('s1');
    expect(await store.eventsAfter('s1', id)).toBeUndefined();
  });

  it('stores an already serialized message (storeSerialized) like storeEvent', async () => {
    const prime = await store.storeEvent('s1', 'r1', null);
    const id = await store.storeSerialized!('s1', 'r1', ping(1), JSON.stringify(ping(1)));
    expect(id.startsWith('r1.')).toBe(true);
    expect(await store.eventsAfter('s1', prime)).toEqual({ streamId: 'r1', events: [{ id, message: ping(1) }] });
  });

  it('keeps a bounded number of events per stream', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await store.storeEvent('s1', 'r1', ping(i)));
    expect(await store.eventsAfter('s1', ids[0])).toBeUndefined(); // evicted
    expect((await store.eventsAfter('s1', ids[3]))?.events.map((e) => e.id)).toEqual(ids.slice(4));
  });
});
