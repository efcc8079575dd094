import { InMemoryEventStore } from '../../../../src/stores';

const progress = (token: string, n: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params: { progressToken: token, progress: n },
});

describe('InMemoryEventStore byte bounds', () => {
  it('keeps a session within its byte budget, dropping its oldest events first', async () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 10_000 });
    const token = 'x'.repeat(1_000);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push(await store.storeEvent('s1', i % 2 ? 'r1' : 'r2', progress(token, i)));
    expect(store.size).toBeLessThanOrEqual(10_000);
    // The oldest are gone: resuming after one is refused like an unknown id, never replayed with a gap.
    expect(await store.eventsAfter('s1', ids[0])).toBeUndefined();
    expect(await store.eventsAfter('s1', ids[1])).toBeUndefined();
    // The newest are kept, each replayable with everything after it on its own stream.
    const replay = await store.eventsAfter('s1', ids[45]);
    expect(replay).toEqual({
      streamId: 'r1',
      events: [
        { id: ids[47], message: progress(token, 47) },
        { id: ids[49], message: progress(token, 49) },
      ],
    });
  });

  it('bounds the whole store, taking from the least recently written session first', async () => {
    const store = new InMemoryEventStore({ maxBytes: 20_000, maxBytesPerSession: 1_000_000 });
    const token = 'y'.repeat(1_000);
    const idle = await store.storeEvent('idle', 'r1', progress(token, 0));
    const busy: string[] = [];
    for (let i = 0; i < 12; i++) busy.push(await store.storeEvent('busy', 'r1', progress(token, i)));
    expect((await store.eventsAfter('idle', idle))?.events).toEqual([]); // still within budget
    for (let i = 12; i < 30; i++) busy.push(await store.storeEvent('busy', 'r1', progress(token, i)));
    expect(store.size).toBeLessThanOrEqual(20_000);
    expect(await store.eventsAfter('idle', idle)).toBeUndefined();
    expect(await store.eventsAfter('busy', busy[0])).toBeUndefined();
    expect((await store.eventsAfter('busy', busy[25]))?.events.map((e) => e.id)).toEqual(busy.slice(26));
  });

  it('holds at most the default 4 MiB per session however large the messages (150 echoes of a 2 MB token)', async () => {
    const store = new InMemoryEventStore();
    const token = 'z'.repeat(2 * 1024 * 1024);
    for (let i = 0; i < 150; i++) await store.storeEvent('s1', `r${i}`, progress(token, i));
    expect(store.size).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('forgets the bytes of a cleared session', async () => {
    const store = new InMemoryEventStore();
    await store.storeEvent('s1', 'g', progress('t', 1));
    expect(store.size).toBeGreaterThan(0);
    await store.clearSession('s1');
    expect(store.size).toBe(0);
  });
});
