import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../context/mcp-context';
import type { DpopStore } from '../../auth/dpop-store';
import type { ResourceServerOptions } from '../../auth/resource-server-options';
import { AuthConfigurationError } from '../../auth/auth-configuration.error';
import type { EventStore } from './event-store';
import type { SessionBackplane } from './session-backplane';

/** Options of the Streamable HTTP transport. */
export interface HttpOptions {
  /** Port to listen on (default 3000; 0 picks a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** The MCP endpoint path (default /mcp). */
  path?: string;
  /** Issue Mcp-Session-Id and keep per-session state (default true); false serves every POST on its own. */
  sessions?: boolean;
  /**
   * `auto` answers JSON unless the handler sends something first; `json` never streams; `sse` always does
   * (except the plain JSON -32600 refusing a request that reuses the id of one still answering in the session).
   */
  responseMode?: 'auto' | 'json' | 'sse';
  /** Offer the standalone GET SSE stream (default true with sessions). */
  enableGetStream?: boolean;
  /** Close sessions idle this long, in ms (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /** Refuse new sessions beyond this many (default 10 000). */
  maxSessions?: number;
  /**
   * Validate Host and Origin against `allowedHosts`/`allowedOrigins` (default: on when bound to a
   * loopback address, which is what DNS-rebinding attacks target).
   */
  dnsRebindingProtection?: boolean;
  /** Host names (with or without port) accepted when protection is on (default: localhost, 127.0.0.1, [::1]). */
  allowedHosts?: string[];
  /**
   * Origins accepted when protection is on (default: http(s) origins whose host name is an allowed host,
   * on any port, so local web tools such as the MCP Inspector at http://localhost:6274 may connect).
   */
  allowedOrigins?: string[];
  /** Largest request body in bytes (default 4 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /**
   * Time allowed for a whole request (its headers and body) to arrive, in ms (default 30 000; 0: no
   * limit): the `requestTimeout` of the Node server `listen` starts, which answers a slower request 408
   * and closes its connection. A server of your own (`middleware()`, `callback()`) sets its own.
   */
  requestTimeoutMs?: number;
  /** CORS for browser clients: the allowed origins, or `*`. Off by default. */
  cors?: { origins: string[] | '*' };
  /** Where SSE events are kept for resumption (default: a bounded in-memory store). */
  eventStore?: EventStore;
  /** Interval of keep-alive comments on idle SSE streams, in ms (default 15 000; 0 disables). */
  keepAliveMs?: number;
  /** The `retry` hint sent to clients on SSE streams, in ms (default 1 000). */
  retryMs?: number;
  /** Path of a health endpoint answering `{"status":"ok"}` (default /health; null disables); Host/Origin checked like the MCP path. */
  healthPath?: string | null;
  /**
   * Path of a readiness endpoint (default /ready; null disables): 200 `{"status":"ready"}` when every store
   * answers its probe, else 503 `{"status":"not ready"}`; the per-store detail only to allowed hosts.
   */
  readyPath?: string | null;
  /**
   * Shares sessions with the other instances of a deployment (any instance then serves any request
   * of any session); pair it with a shared `eventStore` (e.g. RedisEventStore).
   */
  sessionBackplane?: SessionBackplane;
  /**
   * Establishes who is calling; the result is `ctx.auth` and scopes sessions. Throw an UnauthorizedError
   * to refuse (401); any other exception is logged and answered 500. The custom path: for OAuth
   * bearer tokens use `auth` (the two together are a configuration error).
   */
  authenticate?: (request: {
    headers: IncomingHttpHeaders;
    method: string;
    url: string;
  }) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * Makes the server an OAuth 2.1 resource server as MCP authorization asks: bearer tokens checked by
   * `auth.verifier`, 401 challenges, Protected Resource Metadata at `/.well-known/oauth-protected-resource/<path>`.
   */
  auth?: ResourceServerOptions;
  /**
   * Where `auth.dpop` keeps the DPoP proofs it has seen and its nonce key (default: the scale-out's store,
   * else one in this process: InMemoryDpopStore). Instances behind one load balancer share one, or a
   * proof could be replayed on the next instance.
   */
  dpopStore?: DpopStore;
  /**
   * Serves an authorization server next to the MCP endpoint (an `OAuthProxy`: metadata, /register,
   * /authorize, /token...), on the same port; pair it with an `auth` verifier from `oauthProxy.verifier()`.
   */
  oauthProxy?: OAuthEndpoints;
  /**
   * The HTTP+SSE transport of protocol 2024-11-05 beside the MCP endpoint, for older clients: a GET on
   * `path` (default /sse) opens the stream, whose `endpoint` event names the POST URL under
   * `messagesPath` (default /messages). On by default with sessions (off with `sessions: false`);
   * `false` turns it off. Its sessions live on this instance only: a `sessionBackplane` does not share them.
   */
  sse2024?: false | { path?: string; messagesPath?: string };
  /**
   * A server card (SEP-2127, a draft): this JSON document, served as is at `/.well-known/mcp/server-card`
   * to any origin, behind the Host check of the MCP path. `mcpkit pack` writes one, server-card.json.
   */
  serverCard?: Readonly<Record<string, unknown>>;
}

/** Something serving OAuth endpoints on plain Node requests, resolving false for requests it does not serve (OAuthProxy). */
export interface OAuthEndpoints {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

export type ResolvedHttpOptions = Required<
  Omit<
    HttpOptions,
    | 'cors'
    | 'eventStore'
    | 'authenticate'
    | 'auth'
    | 'dpopStore'
    | 'allowedOrigins'
    | 'healthPath'
    | 'readyPath'
    | 'sessionBackplane'
    | 'oauthProxy'
    | 'sse2024'
    | 'serverCard'
  >
> &
  Pick<
    HttpOptions,
    'cors' | 'authenticate' | 'auth' | 'dpopStore' | 'allowedOrigins' | 'sessionBackplane' | 'oauthProxy' | 'serverCard'
  > & {
    eventStore: EventStore | undefined;
    healthPath: string | null;
    readyPath: string | null;
    sse2024: false | { path: string; messagesPath: string };
  };

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
}

export function resolveHttpOptions(options: HttpOptions, defaultStore: () => EventStore): ResolvedHttpOptions {
  if (options.auth && options.authenticate)
    throw new AuthConfigurationError('Give the HTTP transport `auth` (OAuth bearer tokens) or `authenticate` (a custom check), not both');
  const host = options.host ?? '127.0.0.1';
  const sessions = options.sessions ?? true;
  return {
    port: options.port ?? 3000,
    host,
    path: options.path ?? '/mcp',
    sessions,
    responseMode: options.responseMode ?? 'auto',
    enableGetStream: sessions && (options.enableGetStream ?? true),
    sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
    maxSessions: options.maxSessions ?? 10_000,
    dnsRebindingProtection: options.dnsRebindingProtection ?? isLoopback(host),
    allowedHosts: options.allowedHosts ?? ['localhost', '127.0.0.1', '[::1]'],
    allowedOrigins: options.allowedOrigins,
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    cors: options.cors,
    eventStore: sessions ? (options.eventStore ?? defaultStore()) : undefined,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    retryMs: options.retryMs ?? 1_000,
    healthPath: options.healthPath === undefined ? '/health' : options.healthPath,
    readyPath: options.readyPath === undefined ? '/ready' : options.readyPath,
    authenticate: options.authenticate,
    auth: options.auth,
    dpopStore: options.dpopStore,
    sessionBackplane: sessions ? options.sessionBackplane : undefined,
    oauthProxy: options.oauthProxy,
    serverCard: options.serverCard,
    sse2024: resolveSse2024(options.sse2024, sessions),
  };
}

function resolveSse2024(option: HttpOptions['sse2024'], sessions: boolean): ResolvedHttpOptions['sse2024'] {
  if (option === false || (option === undefined && !sessions)) return false;
  return { path: option?.path ?? '/sse', messagesPath: option?.messagesPath ?? '/messages' };
}
