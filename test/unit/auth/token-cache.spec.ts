import { tokenDigest } from '../../../src/auth/token-cache';

describe('tokenDigest', () => {
  it('is the SHA-256 of the token, base64url: what the cache of verified tokens is keyed by', () => {
    expect(tokenDigest('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(tokenDigest('token-1')).not.toBe(tokenDigest('token-2'));
  });
});
