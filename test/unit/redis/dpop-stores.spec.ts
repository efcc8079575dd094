import { randomUUID } from 'node:crypto';
import { type DpopStore, InMemoryDpopStore } from '../../../src/auth';
import { RedisDpopStore } from '../../../src/redis';
import { PrivateRedis } from '../../helpers/redis-server';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await PrivateRedis.start();
});
afterAll(() => redis.stop());

type Store = DpopStore & { close?: () => Promise<void> };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([
  ['InMemoryDpopStore', () => new InMemoryDpopStore()],
  ['RedisDpopStore', () => new RedisDpopStore(redis.url, { keyPrefix: `dpop${randomUUID()}:` })],
])('%s (the DpopStore contract)', (_name, make: () => Store) => {
  let store: Store;
  beforeEach(() => {
    store = make();
  });
  afterEach(async () => {
    await store.close?.();
  });

  it('records a key once, even when two uses race, and forgets it after its time (fractions of a millisecond taken)', async () => {
    const both = await Promise.all([store.firstUse('proof', 150.5), store.firstUse('proof', 150.5)]);
    expect(both.sort()).toEqual([false, true]);
    expect(await store.firstUse('proof', 150.5)).toBe(false);
    expect(await store.firstUse('other', 60_000)).toBe(true);
    await sleep(300);
    expect(await store.firstUse('proof', 60_000)).toBe(true);
  });

  it('gives the same nonce key on every call', async () => {
    const key = await store.nonceKey();
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect((await store.nonceKey()).equals(key)).toBe(true);
  });
});

it("RedisDpopStore: instances sharing a prefix see each other's proofs and sign nonces with one key", async () => {
  const prefix = `dpop${randomUUID()}:`;
  const a = new RedisDpopStore(redis.url, { keyPrefix: prefix });
  const b = new RedisDpopStore(redis.url, { keyPrefix: prefix });
  try {
    expect(await a.firstUse('proof', 60_000)).toBe(true);
    expect(await b.firstUse('proof', 60_000)).toBe(false);
    expect((await a.nonceKey()).equals(await b.nonceKey())).toBe(true);
  } finally {
    await a.close();
    await b.close();
  }
});

it('InMemoryDpopStore: a full record refuses new keys rather than forget one still in its window, and takes them again once room frees', async () => {
  const store = new InMemoryDpopStore({ maxBytes: 360 });
  expect(await store.firstUse('a', 200)).toBe(true);
  expect(await store.firstUse('b', 60_000)).toBe(true);
  await expect(store.firstUse('c', 60_000)).rejects.toThrow(/full \(360 bytes\)/);
  expect(await store.firstUse('a', 200)).toBe(false);
  expect(await store.firstUse('b', 60_000)).toBe(false);
  await sleep(300);
  expect(await store.firstUse('c', 60_000)).toBe(true);
  expect(await store.firstUse('b', 60_000)).toBe(false);
});
