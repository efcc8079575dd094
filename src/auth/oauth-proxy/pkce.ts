import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random URL-safe string of `bytes` bytes of entropy (codes, tokens, state, verifiers). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** RFC 7636 verifier syntax: 43 to 128 characters of [A-Za-z0-9-._~]. */
export function isVerifier(value: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(value);
}

/** Compares in constant time (secrets, PKCE, CSRF tokens). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The store key of a token: its hash, so that a leaked store does not leak usable tokens. */
export function tokenKey(kind: string, token: string): string {
  return `${kind}:${createHash('sha256').update(token).digest('base64url')}`;
}
