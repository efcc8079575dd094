import type * as Jose from 'jose';
import { AuthorizationServerError } from './auth.errors';

export interface JwksSourceOptions {
  /** How long fetched keys are used before they are fetched again. */
  readonly cacheMaxAgeMs: number;
  /** Least time between two fetches caused by a token whose key is not found and that names no new `kid`. */
  readonly cooldownMs: number;
  /** Least time between two fetches caused by a token naming a `kid` the set does not hold (a key rotation). */
  readonly newKidFloorMs: number;
  readonly timeoutMs: number;
}

/**
 * The signing keys of an authorization server, fetched from its `jwks_uri` with a web-standard fetch.
 * A token naming a `kid` the set does not hold (the server rotated its keys) causes a fetch as soon as
 * the last one is `newKidFloorMs` old: the token waits that long at most instead of being refused for
 * the whole cooldown, and forged `kid`s cannot cause more than one fetch per floor. When a fetch fails,
 * the keys already held keep serving (a short outage of the authorization server refuses nobody); with
 * no keys at all, verification fails with AuthorizationServerError.
 */
export class JwksSource {
  private local?: Jose.JWTVerifyGetKey;
  private kids: ReadonlySet<string> = new Set();
  /** When the last fetch was started (whatever came of it): every throttle counts from there. */
  private fetchedAt = -Infinity;
  /** When keys were last received. */
  private receivedAt = -Infinity;
  private pending?: Promise<void>;
  /** Why the last fetch failed. */
  private failure?: AuthorizationServerError;

  constructor(
    private readonly jose: typeof Jose,
    private readonly url: URL,
    private readonly options: JwksSourceOptions,
  ) {}

  readonly getKey = async (
    header: Jose.JWTHeaderParameters,
    token: Jose.FlattenedJWSInput,
  ): Promise<Jose.KeyLike | Uint8Array | Jose.JWK> => {
    const now = Date.now();
    // Fetches are spaced by the floor at least, also while the server is down (a failure is not retried at once).
    const mayFetch = this.pending !== undefined || now - this.fetchedAt >= this.options.newKidFloorMs;
    if (!this.local) {
      // Held back by the floor with no keys: the last fetch failed, and says why.
      if (!mayFetch) throw this.failure ?? new AuthorizationServerError(`Could not fetch the signing keys from ${this.url.href}`);
      await this.refresh();
    } else if (now - this.receivedAt >= this.options.cacheMaxAgeMs && mayFetch) await this.refresh();
    try {
      return await this.local!(header, token);
    } catch (error) {
      if (!(error instanceof this.jose.errors.JWKSNoMatchingKey)) throw error;
      const kid = header.kid;
      if (typeof kid !== 'string' || this.kids.has(kid)) {
        // No new key named: the set may still have changed, but not more often than the cooldown.
        if (Date.now() - this.fetchedAt < this.options.cooldownMs) throw error;
        await this.refresh();
        return this.local!(header, token);
      }
      const seen = this.fetchedAt;
      const wait = this.options.newKidFloorMs - (Date.now() - seen);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // Another request may have fetched while this one waited: with the key in it, or without. Whether one did is
      // told by the fetch time itself, not by the clock: a timer may end a millisecond before Date.now() says it should.
      if (!this.kids.has(kid) && (this.pending || this.fetchedAt === seen)) await this.refresh();
      return this.local!(header, token);
    }
  };

  /** One fetch at a time; a failure keeps the keys held, and throws only when there are none. */
  private async refresh(): Promise<void> {
    this.pending ??= this.fetchKeys()
      .catch((error: AuthorizationServerError) => {
        this.failure = error;
        throw error;
      })
      .finally(() => (this.pending = undefined));
    try {
      await this.pending;
    } catch (error) {
      if (!this.local) throw error;
    }
  }

  private async fetchKeys(): Promise<void> {
    this.fetchedAt = Date.now();
    let body: unknown;
    try {
      const response = await fetch(this.url, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      body = await response.json();
    } catch (cause) {
      throw new AuthorizationServerError(`Could not fetch the signing keys from ${this.url.href}`, { cause });
    }
    const keys = (body as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'object' && k !== null)) {
      throw new AuthorizationServerError(`${this.url.href} did not answer with a JSON Web Key Set`);
    }
    // Objects, as checked above; jose checks each key's fields.
    this.local = this.jose.createLocalJWKSet({ keys: keys as Jose.JWK[] });
    this.kids = new Set(keys.map((k: { kid?: unknown }) => k.kid).filter((kid): kid is string => typeof kid === 'string'));
    this.receivedAt = Date.now();
  }
}
