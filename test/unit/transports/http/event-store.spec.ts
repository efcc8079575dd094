import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  it('past maxBytes, takes the least recently written session whole, never the one being written', async () => {
    const store = new InMemoryEventStore({ maxBytes: 20_000, maxBytesPerSession: 1_000_000 });
    const token = 'y'.repeat(1_000); // about 1,340 bytes an event: 14 fit in 20,000 bytes, 15 do not
    const idle: string[] = [];
    for (let i = 0; i < 3; i++) idle.push(await store.storeEvent('idle', 'r1', progress(token, i)));
    const busy: string[] = [];
    for (let i = 0; i < 11; i++) busy.push(await store.storeEvent('busy', 'r1', progress(token, i)));
    expect((await store.eventsAfter('idle', idle[0]))?.events.map((e) => e.id)).toEqual(idle.slice(1));
    busy.push(await store.storeEvent('busy', 'r1', progress(token, 11)));
    expect(store.size).toBeLessThanOrEqual(20_000);
    expect(await store.eventsAfter('idle', idle[2])).toBeUndefined();
    expect((await store.eventsAfter('busy', busy[0]))?.events.map((e) => e.id)).toEqual(busy.slice(1));
  });

  it('tracks at most maxSessions, the least recently written going first (a replay is not a write)', async () => {
    const store = new InMemoryEventStore({ maxSessions: 2 });
    const first = { s1: await store.storeEvent('s1', 'g', progress('t', 1)), s2: await store.storeEvent('s2', 'g', progress('t', 1)) };
    await store.storeEvent('s1', 'g', progress('t', 2));
    await store.storeEvent('s3', 'g', progress('t', 1));
    expect(await store.eventsAfter('s2', first.s2)).toBeUndefined();
    expect((await store.eventsAfter('s1', first.s1))?.events).toHaveLength(1);
    await store.storeEvent('s3', 'g', progress('t', 2));
    await store.storeEvent('s4', 'g', progress('t', 1));
    expect(await store.eventsAfter('s1', first.s1)).toBeUndefined();
  });

  it('holds at most the default 4 MiB per session however large the messages (150 echoes of a 2 MB token)', async () => {
    const store = new InMemoryEventStore();
    const token = 'z'.repeat(2 * 1024 * 1024);
    for (let i = 0; i < 150; i++) await store.storeEvent('s1', `r${i}`, progress(token, i));
    expect(store.size).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('counts two bytes a character for text V8 keeps in two bytes (any character above U+00FF)', async () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 100_000 });
    const cjk = '\u6f22'.repeat(10_000); // 20,000 bytes of heap in each stored message
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await store.storeEvent('s1', 'r1', progress(cjk, i)));
    expect(store.size).toBeLessThanOrEqual(100_000);
    expect(store.size).toBeGreaterThan(4 * 20_000);
    // Four such events fit in 100,000 bytes, not nine (as when counted one byte a character).
    expect(await store.eventsAfter('s1', ids[15])).toBeUndefined();
    expect((await store.eventsAfter('s1', ids[16]))?.events.map((e) => e.id)).toEqual(ids.slice(17));
    // An emoji is two UTF-16 units, each kept in two bytes; Latin-1 text stays one byte a character.
    const latin = new InMemoryEventStore();
    await latin.storeEvent('s1', 'r1', progress('\u00e9'.repeat(10_000), 0));
    const emoji = new InMemoryEventStore();
    await emoji.storeEvent('s1', 'r1', progress('\u{1f600}'.repeat(5_000), 0));
    expect(emoji.size - latin.size).toBeGreaterThanOrEqual(10_000);
  });

  describe('heap held (measured after a full GC)', () => {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    const heldBy = async (fill: (store: InMemoryEventStore) => Promise<void>) => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const store = new InMemoryEventStore();
      await fill(store);
      gc();
      const held = process.memoryUsage().heapUsed - before;
      expect(store.size).toBeGreaterThan(0); // the store is still reachable when measured
      return held;
    };
    const budget = 4 * 1024 * 1024; // the documented default maxBytesPerSession
    const log = (data: string, i: number) => ({
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { level: 'info', data, logger: `flood ${i}` },
    });

    it.each([
      ['160 events of 64 Ki ASCII characters', 'x', 64 * 1024, 160],
      ['160 events of 64 Ki CJK characters', '\u6f22', 64 * 1024, 160],
      ['6,000 events of 700 ASCII characters over six streams', 'x', 700, 6_000],
    ])('one session of %s holds at most the default 4 MiB per session', async (_, char, size, count) => {
      const data = char.repeat(size);
      const held = await heldBy(async (store) => {
        for (let i = 0; i < count; i++) await store.storeEvent('s1', `r${Math.floor(i / 1_000)}`, log(data, i));
      });
      // A little slack for what the measurement cannot tell apart (the session's own maps, `data` itself).
      expect(held).toBeLessThanOrEqual(budget * 1.05);
    });
  });

  it('forgets the bytes of a cleared session', async () => {
    const store = new InMemoryEventStore();
    await store.storeEvent('s1', 'g', progress('t', 1));
    expect(store.size).toBeGreaterThan(0);
    await store.clearSession('s1');
    expect(store.size).toBe(0);
  });
});
