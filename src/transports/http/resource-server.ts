import type { AuthInfo } from '../../context/mcp-context';
import { AuthConfigurationError } from '../../auth/auth-configuration.error';
import { AuthorizationServerError, type ForbiddenOptions, InvalidTokenError } from '../../auth/auth.errors';
import { withPrincipal } from '../../auth/principal';
import { TokenCache, tokenDigest } from '../../auth/token-cache';
import type { ResourceServerOptions } from '../../auth/resource-server-options';
import { DpopProofError, type ProofChecker, proofChecker } from '../../auth/dpop-proof';
import { InMemoryDpopStore, type DpopStore } from '../../auth/dpop-store';
import { OutageLog } from '../../auth/outage-log';
import { ErrorCode } from '../../mcp/json-rpc';
import type { HttpExchange } from './http-exchange';
import { fail, serveDiscovery } from './http-replies';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** Refresh tokens are the client's business with the authorization server: never advertised by the resource. */
const NEVER_ADVERTISED = 'offline_access';
/** RFC 6750 §2.1 b64token. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The scheme and token of an `Authorization: Bearer|DPoP <token>` header (scheme case-insensitive), the token unchecked. */
function credentialsOf(header: string): { scheme: 'bearer' | 'dpop'; token: string } | undefined {
  const space = header.indexOf(' ');
  if (space < 1) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  if (scheme !== 'bearer' && scheme !== 'dpop') return undefined;
  return { scheme, token: header.slice(space + 1).trim() };
}

/** The thumbprint of the key a token is bound to (RFC 9449 §6: `cnf.jkt` of a JWT or an introspection answer). */
function boundKey(auth: AuthInfo): string | undefined {
  const cnf = auth.claims?.cnf as { jkt?: unknown } | undefined;
  return typeof cnf?.jkt === 'string' ? cnf.jkt : undefined;
}

/** The canonical form of a resource URL (RFC 8707, MCP spec): lower-case scheme and host, no fragment, no lone "/". */
export function canonicalResource(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  const href = parsed.href;
  return parsed.pathname === '/' && !parsed.search ? href.slice(0, -1) : href;
}

/**
 * The transport's side of MCP authorization: bearer tokens checked by the verifier, 401 challenges
 * pointing at the Protected Resource Metadata (RFC 9728), which it also serves. Nothing here knows a
 * protocol era: it yields the AuthInfo that travels in the request scope.
 */
export class ResourceServer {
  private resource?: string;
  readonly metadataPaths: readonly string[];
  private readonly scopes: readonly string[];
  private readonly challengeScopes: readonly string[];
  /** Verified tokens (see ResourceServerOptions.tokenCacheMaxBytes); absent when the verifier's answers are not reused. */
  private readonly cache?: TokenCache;
  private readonly outage: OutageLog;
  /** The DPoP proof checker (`auth.dpop`); absent for bearer tokens only. */
  private readonly proofs?: ProofChecker;
  private readonly storeOutage: OutageLog;

  constructor(
    private readonly options: ResourceServerOptions,
    private readonly endpointPath: string,
    bindHost: string,
    private readonly logError: (message: string, error?: unknown) => void,
    dpopStore?: DpopStore,
  ) {
    if (options.authorizationServers.length === 0)
      throw new AuthConfigurationError('auth.authorizationServers must name at least one authorization server');
    for (const issuer of options.authorizationServers) new URL(issuer); // fails fast on a typo
    if (options.resource) this.resource = canonicalResource(options.resource);
    else if (bindHost === '0.0.0.0' || bindHost === '::') {
      throw new AuthConfigurationError(`auth.resource is required when listening on ${bindHost}: tokens must name the URL clients use`);
    }
    const path = this.resource ? new URL(this.resource).pathname : endpointPath;
    this.metadataPaths = path === '/' ? [WELL_KNOWN] : [`${WELL_KNOWN}${path}`, WELL_KNOWN];
    this.scopes = (options.scopesSupported ?? []).filter((s) => s !== NEVER_ADVERTISED);
    this.challengeScopes = options.challengeScopes ? options.challengeScopes.filter((s) => s !== NEVER_ADVERTISED) : this.scopes;
    const maxBytes = options.tokenCacheMaxBytes ?? DEFAULT_TOKEN_CACHE_BYTES;
    if ((options.verifier.cacheTtlMs ?? 0) > 0 && maxBytes > 0) this.cache = new TokenCache(maxBytes);
    this.outage = new OutageLog(logError, 'The token verifier');
    this.storeOutage = new OutageLog(logError, 'The DPoP store');
    if (options.dpop) this.proofs = proofChecker(options.dpop, dpopStore ?? new InMemoryDpopStore());
  }

  /** Takes the URL `listen()` bound as the resource when none was configured. */
  listening(url: string): void {
    if (this.resource) return;
    this.resource = canonicalResource(url);
  }

  /** The Protected Resource Metadata document (RFC 9728 §2). */
  metadata(): Record<string, unknown> {
    const resource = this.requireResource();
    return {
      resource,
      authorization_servers: [...this.options.authorizationServers],
      ...(this.scopes.length > 0 ? { scopes_supported: [...this.scopes] } : {}),
      bearer_methods_supported: ['header'],
      ...(this.proofs
        ? {
            dpop_signing_alg_values_supported: [...this.proofs.algorithms],
            ...(this.options.dpop?.mode === 'required' ? { dpop_bound_access_tokens_required: true } : {}),
          }
        : {}),
      ...(this.options.resourceName ? { resource_name: this.options.resourceName } : {}),
      ...(this.options.documentation ? { resource_documentation: this.options.documentation } : {}),
    };
  }

  /** Answers a GET of a metadata URL; public and CORS-open, as browser-based clients fetch it. */
  serveMetadata(exchange: HttpExchange): void {
    serveDiscovery(exchange, () => this.resolvedOr500(exchange, () => this.metadata()));
  }

  /**
   * The caller's verified AuthInfo, with its principal (undefined for an anonymous caller when
   * allowed); resolves undefined after answering 401 (no or bad token, or a bad DPoP proof), 503 (the
   * authorization server could not answer) or 500 (the verifier failed otherwise). Faults are logged
   * once per outage.
   */
  async authenticate(exchange: HttpExchange): Promise<{ auth: AuthInfo | undefined } | undefined> {
    const resource = this.resolvedOr500(exchange, () => this.requireResource());
    if (!resource) return undefined;
    const header = exchange.header('authorization');
    if (!header) {
      if (this.options.allowAnonymous) return { auth: undefined };
      return this.refuse(exchange, 'Unauthorized: a bearer token is required');
    }
    const credentials = credentialsOf(header);
    if (!credentials || !TOKEN68.test(credentials.token) || (credentials.scheme === 'dpop' && !this.proofs)) {
      return this.refuse(
        exchange,
        'Unauthorized: the Authorization header is not a bearer token',
        'The Authorization header is not a bearer token',
      );
    }
    if (credentials.scheme === 'bearer' && this.options.dpop?.mode === 'required')
      return this.refuseProof(exchange, 'invalid_token', 'This server takes DPoP-bound tokens only');
    const auth = await this.verified(exchange, credentials.token, resource);
    if (!auth) return undefined;
    const jkt = boundKey(auth);
    if (credentials.scheme === 'bearer') {
      // RFC 9449 §7.2: a bound token is worth nothing without its key, whatever scheme it comes with.
      if (jkt !== undefined) return this.refuseProof(exchange, 'invalid_token', 'The token is bound to a key: send it with a DPoP proof');
      return { auth };
    }
    if (jkt === undefined) return this.refuseProof(exchange, 'invalid_token', 'The token is not bound to a key: send it as a bearer token');
    return this.checkProof(exchange, credentials.token, jkt, auth);
  }

  /** The token's AuthInfo, from the cache or the verifier; undefined after answering 401, 503 or 500. */
  private async verified(exchange: HttpExchange, token: string, resource: string): Promise<AuthInfo | undefined> {
    const key = this.cache ? tokenDigest(token) : undefined;
    const cached = key !== undefined ? this.cache!.get(key) : undefined;
    if (cached) return cached;
    try {
      const verified = await this.options.verifier.verify(token, { resource });
      if (verified.expiresAt !== undefined && verified.expiresAt * 1000 <= Date.now()) throw new InvalidTokenError('The token expired');
      // A token always identifies its caller: credentials naming nobody are bound to the token itself.
      const auth = withPrincipal(verified, token)!;
      if (key !== undefined) this.cache!.set(key, auth, this.options.verifier.cacheTtlMs ?? 0);
      this.outage.recovered();
      return auth;
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        this.outage.recovered();
        return this.refuse(exchange, `Unauthorized: ${error.description}`, error.description);
      }
      this.outage.failed(error);
      if (error instanceof AuthorizationServerError) {
        exchange.setHeader('Retry-After', '5');
        fail(exchange, 503, -32000, 'Service Unavailable: the authorization server could not be asked about the token');
      } else fail(exchange, 500, ErrorCode.InternalError, 'Internal error');
      return undefined;
    }
  }

  /** The caller once the request's one DPoP proof holds for its method, URL, token and key; else answered 401. */
  private async checkProof(exchange: HttpExchange, token: string, jkt: string, auth: AuthInfo): Promise<{ auth: AuthInfo } | undefined> {
    const proof = exchange.header('dpop');
    // Node joins repeated headers with ", ", which no compact JWS contains.
    if (!proof || proof.includes(',')) return this.refuseProof(exchange, 'invalid_dpop_proof', 'The request must carry one DPoP proof');
    try {
      const checked = await this.proofs!.check(proof, {
        method: exchange.method,
        url: this.requestUrl(exchange),
        accessToken: token,
        boundTo: jkt,
      });
      this.storeOutage.recovered();
      if (checked.freshNonce) exchange.setHeader('DPoP-Nonce', checked.freshNonce);
      return { auth };
    } catch (error) {
      try {
        if (!(error instanceof DpopProofError)) throw error;
        if (error.code === 'use_dpop_nonce') exchange.setHeader('DPoP-Nonce', (await this.proofs!.nonce())!);
        return this.refuseProof(exchange, error.code, error.description);
      } catch (fault) {
        // The store (a Redis outage) could not say whether the proof is new: the deployment's fault, not the client's.
        this.storeOutage.failed(fault);
        exchange.setHeader('Retry-After', '5');
        fail(exchange, 503, -32000, 'Service Unavailable: the DPoP proof could not be checked');
        return undefined;
      }
    }
  }

  /**
   * The URL the client addressed, as the public sees the server: the configured resource for the MCP
   * path (the server may sit behind proxies that rewrite it), else its origin and the request's path.
   */
  private requestUrl(exchange: HttpExchange): string {
    const resource = new URL(this.requireResource());
    // A resource with a path is the endpoint's public URL; an origin-only one (RFC 8707 allows it) names no path.
    const named = exchange.path === this.endpointPath && resource.pathname !== '/';
    return named ? resource.href : `${resource.origin}${exchange.path}`;
  }

  /**
   * `WWW-Authenticate` for 401: no `error` when no credentials came (RFC 6750 §3.1), `invalid_token`
   * otherwise; the scopes to ask for are `challengeScopes` plus those of the operation refused, if any.
   */
  challenge(description?: string, requiredScopes: readonly string[] = []): string {
    const params: [string, string][] = [];
    if (description !== undefined) params.push(['error', 'invalid_token'], ['error_description', description]);
    params.push(['resource_metadata', this.metadataUrl()]);
    // An operation's own scopes join the first grant, so that the token the client gets can use it.
    const scopes =
      requiredScopes.length > 0
        ? [...new Set([...this.challengeScopes, ...requiredScopes.filter((s) => s !== NEVER_ADVERTISED)])]
        : this.challengeScopes;
    if (scopes.length > 0) params.push(['scope', scopes.join(' ')]);
    if (!this.proofs) return challengeOf('Bearer', params);
    // With DPoP, the client learns the algorithms it may sign with (RFC 9449 §7.1); Bearer first, as clients read it.
    const dpop = challengeOf('DPoP', [...params, ['algs', this.proofs.algorithms.join(' ')]]);
    return this.options.dpop?.mode === 'required' ? dpop : `${challengeOf('Bearer', params)}, ${dpop}`;
  }

  /**
   * `WWW-Authenticate` for 403: the scopes the operation needs, so the client can step up; in the scheme
   * the caller's token came with (a bound token comes with DPoP only).
   */
  forbiddenChallenge(requiredScopes: readonly string[], description: string, auth?: AuthInfo): string {
    return forbiddenChallenge(
      requiredScopes.filter((s) => s !== NEVER_ADVERTISED),
      description,
      this.resource && this.metadataUrl(),
      auth && boundKey(auth) !== undefined ? 'DPoP' : 'Bearer',
    );
  }

  /** `WWW-Authenticate` for a step-up (RFC 9470 §3): sign in again, with one of `acrValues`, at most `maxAge` seconds ago. */
  stepUpChallenge(stepUp: NonNullable<ForbiddenOptions['stepUp']>, description: string, auth: AuthInfo): string {
    const params: [string, string][] = [
      ['error', 'insufficient_user_authentication'],
      ['error_description', description],
    ];
    if (stepUp.acrValues?.length) params.push(['acr_values', stepUp.acrValues.join(' ')]);
    if (stepUp.maxAge !== undefined) params.push(['max_age', String(stepUp.maxAge)]);
    if (this.resource) params.push(['resource_metadata', this.metadataUrl()]);
    return challengeOf(boundKey(auth) !== undefined ? 'DPoP' : 'Bearer', params);
  }

  private metadataUrl(): string {
    const url = new URL(this.requireResource());
    return `${url.origin}${this.metadataPaths[0]}`;
  }

  private refuse(exchange: HttpExchange, message: string, description?: string): undefined {
    exchange.setHeader('WWW-Authenticate', this.challenge(description));
    fail(exchange, 401, -32000, message);
    return undefined;
  }

  /** 401 with a DPoP challenge naming the error (RFC 9449 §7.1), e.g. `invalid_dpop_proof` or `use_dpop_nonce`. */
  private refuseProof(exchange: HttpExchange, error: DpopProofError['code'], description: string): undefined {
    // A server without DPoP refuses a bound token as it refuses any bad bearer token.
    if (!this.proofs) return this.refuse(exchange, `Unauthorized: ${description}`, description);
    const params: [string, string][] = [
      ['error', error],
      ['error_description', description],
      ['resource_metadata', this.metadataUrl()],
      ['algs', this.proofs.algorithms.join(' ')],
    ];
    exchange.setHeader('WWW-Authenticate', challengeOf('DPoP', params));
    fail(exchange, 401, -32000, `Unauthorized: ${description}`);
    return undefined;
  }

  private requireResource(): string {
    if (!this.resource)
      throw new AuthConfigurationError(
        'auth.resource is required when the transport is served without listen(): tokens must name this server',
      );
    return this.resource;
  }

  private resolvedOr500<T>(exchange: HttpExchange, get: () => T): T | undefined {
    try {
      return get();
    } catch (error) {
      this.logError('Authorization is misconfigured', error);
      fail(exchange, 500, ErrorCode.InternalError, 'Internal error');
      return undefined;
    }
  }
}

/** 4 MiB: about 4,000 typical JWT access tokens. */
const DEFAULT_TOKEN_CACHE_BYTES = 4 * 1024 * 1024;

/** The 403 challenge (RFC 6750 §3.1 insufficient_scope), with the metadata URL when one is known. */
export function forbiddenChallenge(
  requiredScopes: readonly string[],
  description: string,
  metadataUrl?: string,
  scheme: 'Bearer' | 'DPoP' = 'Bearer',
): string {
  const params: [string, string][] = [['error', 'insufficient_scope']];
  if (requiredScopes.length > 0) params.push(['scope', requiredScopes.join(' ')]);
  if (metadataUrl) params.push(['resource_metadata', metadataUrl]);
  params.push(['error_description', description]);
  return challengeOf(scheme, params);
}

/** RFC 7235 auth-params as quoted strings; descriptions keep to RFC 6750's characters (no quote, no backslash). */
function challengeOf(scheme: 'Bearer' | 'DPoP', params: readonly [string, string][]): string {
  const quoted = params.map(([k, v]) => `${k}="${v.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`);
  return `${scheme} ${quoted.join(', ')}`;
}
