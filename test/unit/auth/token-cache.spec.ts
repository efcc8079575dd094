import { TokenCache, tokenDigest } from '../../../src/auth/token-cache';
import type { AuthInfo } from '../../../src';

const NOW = 1_700_000_000_000;
const auth = (expiresInSec: number | undefined, claims: Record<string, unknown> = {}): AuthInfo => ({
  principal: 'sub:a@',
  subject: 'a',
  claims,
  expiresAt: expiresInSec === undefined ? undefined : NOW / 1000 + expiresInSec,
});

describe('TokenCache', () => {
  it('keys by the SHA-256 of the token: one character apart is another entry, and the token is not kept', () => {
    expect(tokenDigest('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    const cache = new TokenCache(1 << 20);
    cache.set(tokenDigest('token-1'), auth(60), 60_000, NOW);
    expect(cache.get(tokenDigest('token-1'), NOW)).toBeDefined();
    expect(cache.get(tokenDigest('token-2'), NOW)).toBeUndefined();
  });

  it('never serves an entry past the token exp, nor past its ttl', () => {
    const cache = new TokenCache(1 << 20);
    cache.set('exp', auth(30), 600_000, NOW);
    expect(cache.get('exp', NOW + 29_999)).toBeDefined();
    expect(cache.get('exp', NOW + 30_000)).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('ttl', auth(3600), 1_000, NOW);
    expect(cache.get('ttl', NOW + 999)).toBeDefined();
    expect(cache.get('ttl', NOW + 1_000)).toBeUndefined();
  });

  it('keeps nothing without an expiry, with a ttl of 0, or already expired', () => {
    const cache = new TokenCache(1 << 20);
    cache.set('none', auth(undefined), 60_000, NOW);
    cache.set('zero', auth(60), 0, NOW);
    cache.set('past', auth(-1), 60_000, NOW);
    expect(cache.size).toBe(0);
  });

  it('stays within its bytes, the oldest entries going first', () => {
    const claims = { scope: 'x'.repeat(1_000) };
    const cache = new TokenCache(20_000);
    for (let i = 0; i < 100; i++) cache.set(`key-${i}`, auth(60, claims), 60_000, NOW);
    expect(cache.heldBytes).toBeLessThanOrEqual(20_000);
    expect(cache.size).toBeGreaterThan(3);
    expect(cache.size).toBeLessThan(100);
    expect(cache.get('key-99', NOW)).toBeDefined();
    expect(cache.get('key-0', NOW)).toBeUndefined();
    // An entry larger than the whole cache is not kept (and evicts nothing).
    cache.set('huge', auth(60, { blob: 'y'.repeat(50_000) }), 60_000, NOW);
    expect(cache.get('huge', NOW)).toBeUndefined();
    expect(cache.get('key-99', NOW)).toBeDefined();
  });
});
