import type { DpopStore } from '../dpop-store';
import type { DpopOptions } from '../resource-server-options';
import type { OAuthProxyStore } from './oauth-proxy.store';

/** The identity provider behind the proxy, where the proxy is one confidential client with a fixed id and secret. */
export interface UpstreamProviderOptions {
  /** The provider's issuer: endpoints not given are read from its discovery document (OIDC, then RFC 8414). */
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  /** Where the signed-in identity is read when the token response has no id_token (e.g. GitHub's /user). */
  userinfoEndpoint?: string;
  clientId: string;
  clientSecret: string;
  /** Scopes asked of the provider (default `openid`). */
  scopes?: string[];
  /** How the secret is sent to the token endpoint (default client_secret_post). */
  tokenEndpointAuthMethod?: 'client_secret_post' | 'client_secret_basic';
  /** The callback registered at the provider (default `<issuer>/callback`). */
  redirectUri?: string;
  /** Extra parameters of the authorization request (e.g. `{ prompt: 'consent', access_type: 'offline' }`). */
  extraAuthorizeParams?: Record<string, string>;
}

/** The tokens the upstream provider issued for a grant; kept server-side, never given to MCP clients. */
export interface UpstreamTokens {
  readonly access_token: string;
  readonly token_type?: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
  readonly expires_in?: number;
  readonly scope?: string;
  readonly [key: string]: unknown;
}

/** Who signed in upstream: `subject` becomes the proxy token's `sub`. */
export interface UpstreamIdentity {
  subject: string;
  /** Claims of the identity (id_token payload or userinfo). */
  claims: Record<string, unknown>;
}

/** A private JSON Web Key (RFC 7517), typed here so that mcpkit's declarations need no jose types. */
export interface SigningJwk {
  kty: string;
  kid?: string;
  alg?: string;
  crv?: string;
  d?: string;
  [member: string]: unknown;
}

/** An identity provider whose identity assertion JWT authorization grants (ID-JAG) the proxy takes. */
export interface TrustedIdentityProvider {
  /** The provider's issuer identifier: the assertions' `iss`. */
  issuer: string;
  /** Where its signing keys are published (fetched, cached, refetched on an unknown `kid`). */
  jwksUri?: string;
  /** Fixed public keys instead of `jwksUri`. */
  jwks?: { keys: readonly Record<string, unknown>[] };
  /** Signing algorithms accepted (default DEFAULT_JWT_ALGORITHMS); symmetric ones and `none` are refused. */
  algorithms?: readonly string[];
  /** The client ids (registered with this proxy) that may present its assertions (default: any confidential client). */
  clients?: readonly string[];
  /**
   * Its scopes as this server names them, e.g. `{ 'chat.read': 'mcp:tools' }` (default: the same names);
   * a scope the map does not name is dropped. Either way only `scopesSupported` can be granted.
   */
  scopes?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The subject of the tokens from its assertions. By default their `sub` when this provider is the
   * upstream one (same issuer: a user signing in either way is one principal), else `<issuer>#<sub>`,
   * so that the users of two providers never share sessions or tasks.
   */
  subject?: (claims: Readonly<Record<string, unknown>>) => string;
}

/** Enterprise-managed authorization: the ID-JAG grant at the token endpoint. */
export interface EnterpriseOptions {
  identityProviders: readonly TrustedIdentityProvider[];
  /** How old an assertion may be (its `iat`), in seconds (default 300). */
  maxAssertionAgeSec?: number;
  /** Clock skew allowed for `exp` and `iat`, in seconds (default 30). */
  clockToleranceSec?: number;
}

/** Options of `new OAuthProxy(...)`. */
export interface OAuthProxyOptions {
  /**
   * The proxy's issuer URL (https in production); its endpoints live under its path. Default: the
   * origin of the first request, which suits loopback development only.
   */
  issuer?: string;
  /** The MCP server(s) tokens may be issued for (RFC 8707 `resource`, the token's `aud`); the first is the default. */
  resource: string | string[];
  upstream: UpstreamProviderOptions;
  /** Default: a bounded in-memory store (one instance only). */
  store?: OAuthProxyStore;
  /** A private JWK (EC P-256 / ES256, or RSA / RS256) signing the proxy's tokens; default: a key generated at start, so tokens die with the process. */
  signingKey?: SigningJwk;
  /** Scopes MCP clients may ask for (advertised in the metadata); requests for others are refused with invalid_scope. */
  scopesSupported?: string[];
  /** `skip: true` approves every request without the consent page: development only. */
  consent?: { skip?: boolean };
  /** Client ID metadata documents (https client_id URLs): on by default. */
  clientMetadataDocuments?: {
    enabled?: boolean;
    /** Accept http client_id URLs on loopback hosts (tests and local development). */
    allowLoopbackHttp?: boolean;
    /** Which hosts may serve them (default: any). */
    allowHost?: (host: string) => boolean;
    /** Cache time when the document's response has no max-age, in ms (default 5 minutes; at most a day either way). */
    cacheTtlMs?: number;
  };
  /** Turns the upstream's answer into an identity (default: the id_token's `sub`, else userinfo `sub` or `id`). */
  identify?: (tokens: UpstreamTokens, userinfo: () => Promise<Record<string, unknown>>) => Promise<UpstreamIdentity>;
  /** Lifetimes in seconds: access tokens (default 3600), refresh tokens (30 days), authorization codes (120), pending sign-ins (600), registered clients (90 days). */
  ttl?: { accessToken?: number; refreshToken?: number; code?: number; pending?: number; client?: number };
  /**
   * DPoP at the token endpoint (RFC 9449 §5): a client that sends a proof gets tokens bound to its key
   * (`token_type: DPoP`, `cnf.jkt`), and a public client's refreshes must prove the same key. Always on;
   * this tunes it. Several instances share `store` (e.g. RedisDpopStore), or a proof could be replayed on
   * another. Pair it with the resource server's `auth.dpop`.
   */
  dpop?: Pick<DpopOptions, 'algorithms' | 'maxAgeSec' | 'clockToleranceSec'> & { store?: DpopStore };
  /**
   * Enterprise-managed authorization (MCP `ext-auth`): the token endpoint takes the identity assertion JWT
   * authorization grant (`urn:ietf:params:oauth:grant-type:jwt-bearer` with an ID-JAG) from the identity
   * providers named here, for clients that authenticate. The token carries the assertion's user and
   * client; no refresh token is issued (the client asks its identity provider for a new assertion).
   */
  enterprise?: EnterpriseOptions;
  /** Told of unexpected faults (a store or upstream outage); defaults to console.error. */
  logError?: (message: string, error?: unknown) => void;
}
