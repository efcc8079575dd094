import * as crypto from 'node:crypto';
import type { AuthInfo } from '../context/mcp-context';

/** Node >= 20.12 hashes in one call (about half the cost of createHash; measured 1.3 µs vs 2.5 µs for an 800-byte token). */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** The SHA-256 of a token: what the cache is keyed by, so that no other token can hit an entry and no token is kept. */
export function tokenDigest(token: string): string {
  return oneShot ? oneShot('sha256', token, 'base64url') : crypto.createHash('sha256').update(token).digest('base64url');
}

interface Entry {
  readonly auth: AuthInfo;
  readonly until: number;
  readonly bytes: number;
}

/** Map overhead per entry, besides its key and claims (measured roughly: entry object, map slot, AuthInfo shell). */
const ENTRY_OVERHEAD = 400;

/**
 * Verified tokens, remembered so that a token already verified costs a hash and a lookup instead of
 * a signature check or an introspection request. Keyed by the token's SHA-256 (the token itself is
 * not kept); an entry never outlives the token's `exp`; the whole is bounded in bytes (the oldest go
 * first).
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held, as estimated (keys, claims as JSON, overhead). */
  get heldBytes(): number {
    return this.bytes;
  }

  get(key: string, now = Date.now()): AuthInfo | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > now) return entry.auth;
    this.delete(key, entry);
    return undefined;
  }

  /** Remembers `auth` for at most `ttlMs`, never past its `expiresAt`; credentials with no expiry are not kept. */
  set(key: string, auth: AuthInfo, ttlMs: number, now = Date.now()): void {
    if (!(ttlMs > 0) || auth.expiresAt === undefined) return;
    const until = Math.min(now + ttlMs, auth.expiresAt * 1000);
    if (until <= now) return;
    const bytes = ENTRY_OVERHEAD + 2 * (key.length + (auth.principal?.length ?? 0) + jsonLength(auth.claims));
    if (bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    while (this.bytes + bytes > this.maxBytes) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Entry];
      this.delete(oldestKey, oldest);
    }
    this.entries.set(key, { auth, until, bytes });
    this.bytes += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value ?? null).length;
  } catch {
    return 4096;
  }
}
