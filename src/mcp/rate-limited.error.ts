import { ErrorCode } from './json-rpc';
import { McpError } from './mcp.error';

/** What a rate-limited refusal tells the client: when to retry, and the budget where one is disclosed. */
export interface RateLimitedData {
  /** Milliseconds the client should wait before retrying. */
  readonly retryAfterMs: number;
  /** Calls allowed in the window. */
  readonly limit?: number;
  /** Calls left in the window (0 when refused). */
  readonly remaining?: number;
}

/**
 * Too many requests (JSON-RPC -32023, HTTP 429 with `Retry-After`, and `RateLimit-Limit` and
 * `RateLimit-Remaining` when disclosed). Thrown by `@RateLimit` and `@Concurrency`, and yours to throw
 * for a limit of your own. A limit an upstream API hit inside a tool is not this error: return a tool
 * error for it, so the model sees it.
 */
export class RateLimitedError extends McpError {
  declare readonly data: RateLimitedData;

  /**
   * Throws TypeError for a `retryAfterMs` that is not a finite number (NaN, Infinity), or a `limit` or
   * `remaining` that is not a finite number of calls: a client would read `Retry-After: NaN`.
   */
  constructor(message: string, data: RateLimitedData) {
    for (const key of ['retryAfterMs', 'limit', 'remaining'] as const) {
      const value = data[key];
      if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
        throw new TypeError(`RateLimitedError: ${key} must be a finite number, not ${String(value)}`);
    }
    super(ErrorCode.RateLimited, message, { ...data, retryAfterMs: Math.max(0, Math.ceil(data.retryAfterMs)) });
    this.name = 'RateLimitedError';
  }
}
