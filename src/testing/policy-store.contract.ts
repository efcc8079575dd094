import assert from 'node:assert/strict';
import type { PolicyStore } from '../contracts/policy-store';
import type { TestSuiteFunctions } from './task-store.contract';

export interface PolicyStoreContractOptions {
  /**
   * A second store on the same state, as another instance of a deployment has (a second connection to
   * the same Redis). Default: the first store again (an in-process store).
   */
  second?: () => Promise<PolicyStore>;
  /** Runs after each test, once the store is closed (flush a database, stop a server). */
  teardown?: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The contract every PolicyStore must meet: token buckets, idempotency claims (one winner, conflicts,
 * waiting for the winner), cache entries made stale by their tags, and concurrency slots that lapse.
 * With `second`, every exchange runs between two stores on one state, as between two instances.
 * Timing is real: the suite takes a few seconds.
 * `describePolicyStoreContract({ describe, it, beforeEach, afterEach }, 'MyStore', async () => store)`.
 */
export function describePolicyStoreContract(
  t: TestSuiteFunctions,
  name: string,
  makeStore: () => Promise<PolicyStore>,
  options: PolicyStoreContractOptions = {},
): void {
  t.describe(`PolicyStore contract: ${name}`, () => {
    let store: PolicyStore;
    let other: PolicyStore;
    let n = 0;
    /** A key no earlier test used (stores may be shared between tests). */
    const fresh = (what: string) => `${what}:${process.pid}:${Date.now()}:${++n}`;
    t.beforeEach(async () => {
      store = await makeStore();
      other = options.second ? await options.second() : store;
    });
    t.afterEach(async () => {
      await store.close?.();
      if (other !== store) await other.close?.();
      await options.teardown?.();
    });

    t.it('lets `limit` calls through at once, then refuses with the time until the bucket refills', async () => {
      const key = fresh('bucket');
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await store.consume(key, 3, 900));
      assert.deepEqual(
        decisions.map((d) => [d.allowed, d.remaining]),
        [
          [true, 2],
          [true, 1],
          [true, 0],
        ],
      );
      const refused = await other.consume(key, 3, 900);
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 300, `retry after ${refused.retryAfterMs} ms`);
      await sleep(refused.retryAfterMs + 30);
      assert.equal((await other.consume(key, 3, 900)).allowed, true);
      assert.equal((await store.consume(fresh('bucket'), 3, 900)).allowed, true, 'another key has its own bucket');
    });

    /** Claims `key`; its token to settle it with. */
    const claimed = async (on: PolicyStore, key: string, fingerprint: string, runningMs: number): Promise<string> => {
      const claim = await on.claim(key, fingerprint, runningMs);
      assert.equal(claim.status, 'claimed');
      return (claim as { token: string }).token;
    };

    t.it('gives a key to one claimant; the same call waits, other arguments conflict, the result is kept', async () => {
      const key = fresh('claim');
      const token = await claimed(store, key, 'f1', 60_000);
      assert.deepEqual(await other.claim(key, 'f1', 60_000), { status: 'running' });
      assert.deepEqual(await other.claim(key, 'f2', 60_000), { status: 'conflict' });
      const waited = other.waitSettled(key, new AbortController().signal);
      await store.settle(key, token, '{"ok":true}', 60_000);
      await waited;
      assert.deepEqual(await other.claim(key, 'f1', 60_000), { status: 'done', value: '{"ok":true}' });
      assert.deepEqual(await other.claim(key, 'f2', 60_000), { status: 'conflict' });
    });

    t.it('drops a claim settled without a value, and one whose call ran past runningMs', async () => {
      const dropped = fresh('claim');
      await store.settle(dropped, await claimed(store, dropped, 'f', 60_000), undefined, 60_000);
      await claimed(other, dropped, 'f', 60_000);
      const lapsed = fresh('claim');
      await claimed(store, lapsed, 'f', 150);
      await sleep(250);
      await claimed(other, lapsed, 'f', 60_000);
    });

    t.it('lets only the current claimant settle: a call that outlived its claim changes nothing', async () => {
      const key = fresh('claim');
      const late = await claimed(store, key, 'f', 150);
      await sleep(250);
      const current = await claimed(other, key, 'f', 60_000);
      await store.settle(key, late, undefined, 60_000);
      await store.settle(key, late, '"stale"', 60_000);
      assert.deepEqual(await store.claim(key, 'f', 60_000), { status: 'running' });
      await other.settle(key, current, '"fresh"', 60_000);
      assert.deepEqual(await store.claim(key, 'f', 60_000), { status: 'done', value: '"fresh"' });
    });

    t.it('forgets a result after its ttl, and waitSettled returns at once when nothing runs', async () => {
      const key = fresh('claim');
      await store.settle(key, await claimed(store, key, 'f', 60_000), 'v', 150);
      await other.waitSettled(key, new AbortController().signal);
      await sleep(250);
      await claimed(other, key, 'f', 60_000);
    });

    t.it('serves a cached value until its ttl, or until one of its tags is invalidated', async () => {
      const key = fresh('cache');
      const tags = [fresh('tag'), fresh('tag')];
      const miss = await store.cacheGet(key, tags);
      assert.equal(miss.value, undefined);
      await store.cacheSet(key, 'v1', 60_000, miss.version);
      assert.equal((await other.cacheGet(key, tags)).value, 'v1');
      await other.invalidate(tags[1]);
      assert.equal((await store.cacheGet(key, tags)).value, undefined);
      const short = fresh('cache');
      await store.cacheSet(short, 'v2', 150, (await store.cacheGet(short, tags)).version);
      assert.equal((await other.cacheGet(short, tags)).value, 'v2');
      await sleep(250);
      assert.equal((await other.cacheGet(short, tags)).value, undefined);
    });

    t.it('does not serve a value computed while one of its tags was invalidated', async () => {
      const key = fresh('cache');
      const tag = fresh('tag');
      const before = await store.cacheGet(key, [tag]);
      await other.invalidate(tag);
      await store.cacheSet(key, 'computed during the change', 60_000, before.version);
      assert.equal((await other.cacheGet(key, [tag])).value, undefined);
      assert.equal((await other.cacheGet(fresh('cache'), [fresh('tag')])).value, undefined);
    });

    t.it('hands out at most `max` slots, frees them on release and when their lease lapses', async () => {
      const key = fresh('slots');
      const a = await store.acquire(key, 2, 60_000);
      const b = await other.acquire(key, 2, 200);
      assert.ok(a && b && a !== b, 'two distinct permits');
      assert.equal(await store.acquire(key, 2, 60_000), undefined);
      await other.waitForRelease(key, 2, AbortSignal.timeout(5_000));
      const c = await store.acquire(key, 2, 60_000);
      assert.ok(c, 'the lapsed slot is free again');
      const freed = store.waitForRelease(key, 2, AbortSignal.timeout(5_000));
      await other.release(key, a);
      await freed;
      assert.ok(await store.acquire(key, 2, 60_000), 'a released slot is free again');
    });

    t.it('waitForRelease returns at once while a slot is free, and on abort', async () => {
      const key = fresh('slots');
      await store.waitForRelease(key, 1, new AbortController().signal);
      await store.acquire(key, 1, 60_000);
      const controller = new AbortController();
      const waiting = other.waitForRelease(key, 1, controller.signal);
      controller.abort();
      await waiting;
    });
  });
}
