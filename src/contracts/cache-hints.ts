/** A caching hint of the per-request era: how long a result stays fresh, and who may share it. */
export interface CacheHint {
  /** Milliseconds the client may consider the result fresh (0: re-fetch whenever needed). */
  ttlMs: number;
  /** 'private' results are not shared across authorization contexts; default: private for authenticated requests. */
  scope?: 'public' | 'private';
}

/** Caching hints by operation (results of 2026-07-28 requests). */
export interface CacheHints {
  discover?: CacheHint;
  /** tools/list, prompts/list, resources/list and resources/templates/list. */
  lists?: CacheHint;
  /** resources/read (a resource's own `cache` option wins). */
  reads?: CacheHint;
}
