import { InMemoryOAuthProxyStore, type OAuthProxyStore } from '../../../src/auth';
import { RedisOAuthProxyStore } from '../../../src/redis';
import { PrivateRedis } from '../../helpers/redis-server';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await PrivateRedis.start();
});
afterAll(() => redis.stop());

type Store = OAuthProxyStore & { close?: () => Promise<void> };

describe.each([
  ['InMemoryOAuthProxyStore', () => new InMemoryOAuthProxyStore()],
  ['RedisOAuthProxyStore', () => new RedisOAuthProxyStore(redis.url, { keyPrefix: `op${Math.random()}:` })],
])('%s (the OAuthProxyStore contract)', (_name, make: () => Store) => {
  let store: Store;
  beforeEach(() => {
    store = make();
  });
  afterEach(async () => {
    await store.close?.();
  });

  it('puts, gets, replaces and deletes', async () => {
    await store.put('a', 'one', 60_000);
    expect(await store.get('a')).toBe('one');
    await store.put('a', 'two', 60_000);
    expect(await store.get('a')).toBe('two');
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
    await store.delete('never-there');
  });

  it('takes a value once, even when two takes race', async () => {
    await store.put('code', 'x', 60_000);
    const both = await Promise.all([store.take('code'), store.take('code')]);
    expect(both.filter((v) => v === 'x')).toHaveLength(1);
    expect(await store.get('code')).toBeUndefined();
    expect(await store.take('missing')).toBeUndefined();
  });

  it('forgets an entry after its ttl', async () => {
    await store.put('short', 'v', 5);
    await store.put('long', 'v', 60_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.take('short')).toBeUndefined();
    expect(await store.get('long')).toBe('v');
  });
});

describe('InMemoryOAuthProxyStore bounds', () => {
  it('keeps at most maxEntries, dropping the entry closest to expiry', async () => {
    let now = 0;
    const store = new InMemoryOAuthProxyStore({ maxEntries: 2, now: () => now });
    await store.put('soon', '1', 10);
    await store.put('late', '2', 1_000);
    await store.put('new', '3', 500);
    expect(store.size).toBe(2);
    expect(await store.get('soon')).toBeUndefined();
    expect(await store.get('late')).toBe('2');
    now = 600;
    expect(await store.get('new')).toBeUndefined();
  });
});
