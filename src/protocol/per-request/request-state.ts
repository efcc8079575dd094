import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { McpError } from '../../mcp/mcp.error';

/** How requestState is sealed: the keys (the first one signs, all of them verify), its lifetime and size. */
export interface RequestStateOptions {
  /**
   * HMAC keys (at least 32 bytes each). The first signs new state; every one of them verifies, so a key
   * is rotated by putting the new one first and dropping the old one after `ttlMs`. Default: the
   * `MCPKIT_STATE_SECRET` environment variable, else a random key of this process (then a retry must
   * come back to the same process: set a key shared by all instances when you scale out).
   */
  secrets?: (string | Buffer)[];
  /** How long a client may take to answer the input requests of one round, in ms (default 10 minutes). */
  ttlMs?: number;
  /** Largest requestState accepted or issued, in bytes (default 256 KiB). */
  maxBytes?: number;
  /**
   * Loads the signing key when `secrets` and `MCPKIT_STATE_SECRET` are not set (a secret manager). With
   * `scaleOut`, mcpkit uses one key generated once and shared through the scale-out's storage.
   * Until it loads (or while it fails: the error is logged, and retried on the next request), this
   * process's own key is used.
   */
  loadSecret?: () => Promise<string | Buffer>;
}

/** What a round of a multi round-trip request is bound to: who asked, for what. */
export interface StateBinding {
  /** The caller: the authenticated caller's owner key (see ownerOf), 'local', or '' for an anonymous caller. */
  principal: string;
  method: string;
  /** The tool or prompt name, or the resource URI. */
  name: string;
  /** A digest of the arguments. */
  digest: string;
}

/** The content of a requestState. */
export interface RoundState {
  /** Answers of the handler's requests to the client so far, by input request key. */
  answers: Record<string, unknown>;
  /** Values kept with `ctx.once` across rounds. */
  kept: Record<string, unknown>;
}

interface Sealed extends RoundState {
  v: 1;
  p: string;
  m: string;
  n: string;
  d: string;
  e: number;
}

/**
 * Seals and opens requestState: base64url(JSON) "." base64url(HMAC-SHA256), bound to the principal, the
 * method, the name and a digest of the arguments, with an expiry. Anything that fails to open is
 * -32602, whatever the reason (the reason is in the message).
 */
export class RequestStateSealer {
  readonly ttlMs: number;
  readonly maxBytes: number;
  /** False when the key is this process's own random one (retries must come back to this process). */
  shared: boolean;
  /** The keys given or loaded; undefined while this process's own key is not made yet (see `keys`). */
  private given?: Buffer[];
  private own?: Buffer;
  private loading?: Promise<void>;

  constructor(private readonly options: RequestStateOptions = {}) {
    const given = options.secrets?.length
      ? options.secrets
      : process.env.MCPKIT_STATE_SECRET
        ? [process.env.MCPKIT_STATE_SECRET]
        : undefined;
    this.shared = given !== undefined;
    this.given = given?.map((s) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s));
    for (const key of this.given ?? []) if (key.length < 32) throw new RangeError('A requestState secret needs at least 32 bytes');
    this.ttlMs = options.ttlMs ?? 600_000;
    this.maxBytes = options.maxBytes ?? 262_144;
  }

  /**
   * Settles once a loaded key is in use (at once when there is nothing to load); never rejects. A failed
   * load is reported to `onError` and tried again on a later call.
   */
  ready(onError: (message: string, error: unknown) => void): Promise<void> | undefined {
    const load = this.options.loadSecret;
    if (this.shared || !load) return undefined;
    this.loading ??= Promise.resolve()
      .then(load)
      .then(
        (secret) => {
          const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
          if (key.length < 32) throw new RangeError('A requestState secret needs at least 32 bytes');
          this.given = [key];
          this.shared = true;
        },
        (error) => onError('Could not load the requestState secret; this process signs with its own key until it loads', error),
      )
      .catch((error) => onError('The loaded requestState secret is unusable', error))
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  /**
   * The first signs, all of them verify. This process's own key is made when first needed: a server
   * whose clients never need a second round makes none.
   */
  private get keys(): Buffer[] {
    if (this.given) return this.given;
    this.own ??= randomBytes(32);
    return [this.own];
  }

  seal(binding: StateBinding, state: RoundState, now = Date.now()): string {
    const sealed: Sealed = {
      v: 1,
      p: binding.principal,
      m: binding.method,
      n: binding.name,
      d: binding.digest,
      e: now + this.ttlMs,
      ...state,
    };
    const body = Buffer.from(JSON.stringify(sealed)).toString('base64url');
    const token = `${body}.${this.mac(this.keys[0], body)}`;
    if (token.length > this.maxBytes) throw new McpError(-32603, `The requestState of this round would exceed ${this.maxBytes} bytes`);
    return token;
  }

  open(token: unknown, binding: StateBinding, now = Date.now()): RoundState {
    if (typeof token !== 'string') throw invalid('must be a string');
    if (token.length > this.maxBytes) throw invalid(`is larger than ${this.maxBytes} bytes`);
    const dot = token.indexOf('.');
    const body = dot < 0 ? '' : token.slice(0, dot);
    const mac = dot < 0 ? '' : token.slice(dot + 1);
    if (!body || !this.keys.some((key) => safeEqual(this.mac(key, body), mac)))
      throw invalid('failed verification (tampered, or sealed by another server)');
    let sealed: Sealed;
    try {
      sealed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Sealed;
    } catch {
      throw invalid('is malformed');
    }
    if (sealed.v !== 1 || !isRecord(sealed.answers) || !isRecord(sealed.kept)) throw invalid('is malformed');
    if (!(sealed.e > now)) throw invalid('has expired: retry the request from the start, without requestState');
    if (sealed.p !== binding.principal) throw invalid('belongs to another caller');
    if (sealed.m !== binding.method || sealed.n !== binding.name || sealed.d !== binding.digest)
      throw invalid('belongs to another request');
    return { answers: sealed.answers, kept: sealed.kept };
  }

  private mac(key: Buffer, body: string): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function invalid(why: string): McpError {
  return McpError.invalidParams(`Invalid params: requestState ${why}`);
}

/** A digest of a JSON value that does not depend on the order of object keys. */
export function digestOf(value: unknown): string {
  return digestOfCanonical(stableJson(value));
}

/** The digest of a value already in its canonical form (`stableJson`): `digestOf(v) === digestOfCanonical(stableJson(v))`. */
export function digestOfCanonical(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A JSON text of a value that does not depend on the order of object keys. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
