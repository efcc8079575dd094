import type { TokenVerifier } from './token-verifier';

/**
 * The HTTP transport as an OAuth 2.1 resource server (MCP authorization, RFC 9728 and RFC 8707):
 * every MCP request carries a bearer token that `verifier` accepts, and the transport publishes
 * Protected Resource Metadata naming `authorizationServers`.
 */
export interface ResourceServerOptions {
  /** Issuer URLs of the authorization servers that issue tokens for this server (at least one). */
  authorizationServers: readonly string[];
  /** Turns a bearer token into AuthInfo, or throws InvalidTokenError (401). */
  verifier: TokenVerifier;
  /**
   * The canonical URL of the MCP endpoint, which tokens must be issued for (their audience), e.g.
   * `https://mcp.example.com/mcp`. Default: the URL `listen()` binds (host, port and path); required
   * behind a proxy, when bound to 0.0.0.0/::, or when the transport is mounted without `listen()`.
   */
  resource?: string;
  /** Scopes advertised in the metadata and in 401 challenges (`offline_access` is never advertised). */
  scopesSupported?: readonly string[];
  /**
   * The scopes a 401 challenge asks for, when fewer than `scopesSupported` should be granted at first
   * (least privilege: clients step up when an operation answers 403 insufficient_scope). Default:
   * `scopesSupported`.
   */
  challengeScopes?: readonly string[];
  /** A human-readable name of this server, published as `resource_name`. */
  resourceName?: string;
  /** A page documenting this server for developers, published as `resource_documentation`. */
  documentation?: string;
  /**
   * Serve requests without an Authorization header, with `ctx.auth` undefined (default false: every
   * request needs a valid token). A token that is sent is always verified: an invalid one still gets 401.
   */
  allowAnonymous?: boolean;
  /**
   * Bytes the cache of verified tokens may hold (default 4 MiB, about 4,000 JWTs; 0 turns it off). A
   * token is reused for as long as its verifier's `cacheTtlMs` allows, never past its `exp`; keys are
   * the tokens' SHA-256, so no other token can hit an entry. The least recently used go first when full.
   */
  tokenCacheMaxBytes?: number;
  /**
   * DPoP (RFC 9449): tokens bound to a key the client holds, each request carrying a proof signed with
   * it, so that a token read off the wire or out of a log is useless alone. Leave it out for bearer
   * tokens only (a token bound to a key is still refused as a bearer token); see DpopOptions.
   */
  dpop?: DpopOptions;
}

/**
 * How the resource server takes DPoP-bound tokens (`Authorization: DPoP <token>` and a `DPoP` proof).
 * The proofs seen and the nonce key live in the HTTP option `dpopStore` (the scale-out's when there is
 * one, so that a proof replayed on another instance is refused too).
 */
export interface DpopOptions {
  /** `allowed` (default): bearer tokens and DPoP-bound tokens; `required`: DPoP-bound tokens only. */
  mode?: 'allowed' | 'required';
  /** Algorithms a proof may be signed with (default DEFAULT_DPOP_ALGORITHMS); `none` and MACs are refused. */
  algorithms?: readonly string[];
  /** How old a proof may be, in seconds (default 300): its `jti` is remembered that long. */
  maxAgeSec?: number;
  /** How far a client's clock may run ahead, in seconds (default 5). */
  clockToleranceSec?: number;
  /**
   * Require a nonce this server gave in every proof (RFC 9449 §8): a proof made in advance by a stolen
   * key is then useless. `true`, or the nonce's lifetime in seconds (default 300). A proof without one is
   * answered 401 `use_dpop_nonce` with a `DPoP-Nonce` header; clients retry with it.
   */
  nonce?: boolean | { lifetimeSec?: number };
}

/** Authentication of a stdio server: one token, from the environment, verified once at start. */
export interface StdioAuthOptions {
  verifier: TokenVerifier;
  /** The resource the token must be issued for (the audience JwtVerifier checks). */
  resource: string;
  /** The token (default: the MCP_ACCESS_TOKEN environment variable). Missing or invalid, `listen` rejects. */
  token?: string;
}
