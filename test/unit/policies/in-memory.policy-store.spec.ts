import { InMemoryPolicyStore } from '../../../src/stores';
import { describePolicyStoreContract } from '../../../src/testing';

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
