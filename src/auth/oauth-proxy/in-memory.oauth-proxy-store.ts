import type { OAuthProxyStore } from './oauth-proxy.store';

export interface InMemoryOAuthProxyStoreOptions {
  /** Entries kept at most (default 10 000); past it the entries closest to expiry go first. */
  maxEntries?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/**
 * A bounded, expiring OAuthProxyStore in this process: fine for one instance and for development;
 * its state is lost on restart (clients must register and sign in again).
 */
export class InMemoryOAuthProxyStore implements OAuthProxyStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: InMemoryOAuthProxyStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.evict();
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  async get(key: string): Promise<string | undefined> {
    return this.read(key);
  }

  // No await between the read and the delete: a take is atomic.
  async take(key: string): Promise<string | undefined> {
    const value = this.read(key);
    this.entries.delete(key);
    return value;
  }

  private read(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    if (this.entries.size < this.maxEntries) return;
    let soonest: string | undefined;
    let at = Infinity;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt < at) {
        at = entry.expiresAt;
        soonest = key;
      }
    }
    if (soonest !== undefined) this.entries.delete(soonest);
  }
}
