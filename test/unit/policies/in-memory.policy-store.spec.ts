import { InMemoryPolicyStore } from '../../../src/stores';
import { describePolicyStoreContract } from '../../../src/testing';
import { fakeWallClock } from '../../helpers/clock';

describePolicyStoreContract({ describe, it, beforeEach, afterEach }, 'InMemoryPolicyStore', async () => new InMemoryPolicyStore());

describe('InMemoryPolicyStore bounds', () => {
  it('stays within its byte bound under a flood of distinct keys, evicting the least recently used', async () => {
    const maxBytes = 256 * 1024;
    const store = new InMemoryPolicyStore({ maxBytes });
    const kept = 'bucket:kept';
    await store.consume(kept, 1, 60_000);
    let peak = 0;
    for (let i = 0; i < 20_000; i++) {
      await store.consume(`bucket:${i}`, 10, 60_000);
      await store.cacheSet(`cache:${i}`, 'x'.repeat(200), 60_000, (await store.cacheGet(`cache:${i}`, ['list:tools'])).version);
      if (i % 100 === 0) await store.consume(kept, 1, 60_000); // used now and then: stays
      peak = Math.max(peak, store.usage().bytes);
    }
    expect(peak).toBeLessThanOrEqual(maxBytes);
    expect(store.usage().entries).toBeGreaterThan(100);
    // The recent entries are there, the oldest are gone, the one kept in use still refuses.
    expect((await store.cacheGet('cache:19999', ['list:tools'])).value).toBe('x'.repeat(200));
    expect((await store.cacheGet('cache:0', ['list:tools'])).value).toBeUndefined();
    expect((await store.consume(kept, 1, 60_000)).allowed).toBe(false);
  });

  it('never evicts a running claim or a taken slot, so a flood cannot run an idempotent call twice', async () => {
    const store = new InMemoryPolicyStore({ maxBytes: 64 * 1024 });
    await store.claim('running', 'f', 60_000);
    const permit = await store.acquire('slots', 1, 60_000);
    for (let i = 0; i < 5_000; i++) await store.consume(`bucket:${i}`, 10, 60_000);
    expect(await store.claim('running', 'f', 60_000)).toEqual({ status: 'running' });
    expect(await store.acquire('slots', 1, 60_000)).toBeUndefined();
    await store.release('slots', permit!);
    expect(await store.acquire('slots', 1, 60_000)).toBeDefined();
  });

  it('keeps nothing of a cache entry whose tag was evicted: it is taken as stale, never as fresh', async () => {
    const store = new InMemoryPolicyStore({ maxBytes: 32 * 1024 });
    const { version } = await store.cacheGet('entry', ['resource:a']);
    await store.invalidate('resource:a');
    await store.cacheSet('entry', 'old', 60_000, version);
    for (let i = 0; i < 2_000; i++) await store.invalidate(`resource:${i}`);
    expect((await store.cacheGet('entry', ['resource:a'])).value).toBeUndefined();
  });
});

describe('InMemoryPolicyStore eviction and expiry', () => {
  /** A cached value of 1,000 characters: 2,000 bytes, plus its key and a small overhead. */
  const value = 'v'.repeat(1_000);
  const set = async (store: InMemoryPolicyStore, key: string, ttlMs = 60_000) =>
    store.cacheSet(key, value, ttlMs, (await store.cacheGet(key, [])).version);
  const served = async (store: InMemoryPolicyStore, key: string) => (await store.cacheGet(key, [])).value === value;

  it('evicts when the next entry would pass maxBytes, the least recently used first', async () => {
    // Three entries fit in 7,000 bytes, four do not.
    const store = new InMemoryPolicyStore({ maxBytes: 7_000 });
    for (const key of ['c0', 'c1', 'c2']) await set(store, key);
    expect(store.usage().entries).toBe(3);
    expect(await served(store, 'c0')).toBe(true); // c0 used last: c1 is the least recently used
    await set(store, 'c3');
    expect(store.usage()).toEqual({ entries: 3, bytes: expect.any(Number) });
    expect(store.usage().bytes).toBeLessThanOrEqual(7_000);
    expect(await served(store, 'c1')).toBe(false);
    for (const key of ['c0', 'c2', 'c3']) expect(await served(store, key)).toBe(true);
  });

  it('takes a tag whose clock was evicted as invalidated then, even for a value still kept', async () => {
    const store = new InMemoryPolicyStore({ maxBytes: 32 * 1024 });
    const { version } = await store.cacheGet('entry', ['resource:a']);
    await store.invalidate('resource:a');
    await store.cacheSet('entry', 'old', 60_000, version);
    for (let i = 0; i < 2_000; i++) {
      await store.invalidate(`resource:${i}`);
      expect((await store.cacheGet('entry', [])).value).toBe('old'); // used, so kept; the tag's clock is not
    }
    expect((await store.cacheGet('entry', ['resource:a'])).value).toBeUndefined();
  });

  it('forgets cached values, results and lapsed claims after their time, by the wall clock', async () => {
    const clock = fakeWallClock();
    try {
      const store = new InMemoryPolicyStore();
      await set(store, 'cached', 1_000);
      await store.settle('done', (await claimToken(store, 'done', 60_000))!, '"result"', 1_000);
      await claimToken(store, 'running', 1_000);
      clock.advance(999);
      expect(await served(store, 'cached')).toBe(true);
      expect(await store.claim('done', 'f', 60_000)).toEqual({ status: 'done', value: '"result"' });
      expect(await store.claim('running', 'f', 60_000)).toEqual({ status: 'running' });
      clock.advance(2);
      expect(await served(store, 'cached')).toBe(false);
      expect((await store.claim('done', 'f', 60_000)).status).toBe('claimed');
      expect((await store.claim('running', 'f', 60_000)).status).toBe('claimed');
    } finally {
      clock.restore();
    }
  });

  it('keeps what running calls hold apart from the byte bound, and forgets it when they end', async () => {
    const store = new InMemoryPolicyStore({ maxBytes: 7_000 });
    // A claim whose fingerprint alone is 10,000 bytes, and a slot: neither takes the cached values' room.
    const claim = await store.claim('running', 'f'.repeat(5_000), 60_000);
    const permit = await store.acquire('slots', 1, 60_000);
    for (const key of ['c0', 'c1', 'c2']) await set(store, key);
    for (const key of ['c0', 'c1', 'c2']) expect(await served(store, key)).toBe(true);
    expect(store.usage().entries).toBe(5);
    await store.settle('running', (claim as { token: string }).token, undefined, 60_000);
    await store.release('slots', permit!);
    expect(store.usage().entries).toBe(3);
  });
});

describe('InMemoryPolicyStore slots', () => {
  it('waits for a release until a lease has ended by its clock, not when a timer says so', async () => {
    const store = new InMemoryPolicyStore();
    const clock = fakeWallClock();
    try {
      expect(await store.acquire('slots', 1, 100)).toBeDefined();
      let freed = false;
      const waiting = store.waitForRelease('slots', 1, AbortSignal.timeout(10_000)).then(() => (freed = true));
      // The lease's timer fires after 100 ms of real time, but the store's clock has not moved: the slot is still held.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect({ freed, acquired: await store.acquire('slots', 1, 100) }).toEqual({ freed: false, acquired: undefined });
      clock.advance(100);
      await waiting;
      expect(await store.acquire('slots', 1, 100)).toBeDefined();
    } finally {
      clock.restore();
    }
    await store.close();
  });
});

async function claimToken(store: InMemoryPolicyStore, key: string, runningMs: number): Promise<string | undefined> {
  const claim = await store.claim(key, 'f', runningMs);
  return claim.status === 'claimed' ? claim.token : undefined;
}
