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
}

/** Authentication of a stdio server: one token, from the environment, verified once at start. */
export interface StdioAuthOptions {
  verifier: TokenVerifier;
  /** The resource the token must be issued for (the audience JwtVerifier checks). */
  resource: string;
  /** The token (default: the MCP_ACCESS_TOKEN environment variable). Missing or invalid, `listen` rejects. */
  token?: string;
}
