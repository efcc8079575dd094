import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../context/mcp-context';
import type { TokenVerifier } from '../token-verifier';
import { AuthorizeEndpoint, resources } from './authorize.endpoint';
import { ClientRegistry } from './client-registry';
import { InMemoryOAuthProxyStore } from './in-memory.oauth-proxy-store';
import type { OAuthProxyOptions, UpstreamTokens } from './oauth-proxy.options';
import { OAuthError } from './oauth.error';
import { readParams, sendError, sendJson } from './proxy-http';
import { ProxyRecords } from './proxy-records';
import { isLoopbackHost } from './redirect-uris';
import { TokenEndpoint } from './token.endpoint';
import { TokenIssuer } from './token-issuer';
import { UpstreamClient } from './upstream-client';
import { type ProofChecker, proofChecker } from '../dpop-proof';
import { type DpopStore, InMemoryDpopStore } from '../dpop-store';
import { AuthorizationServerError } from '../auth.errors';
import { OutageLog } from '../outage-log';
import { ID_JAG_PROFILE, IdJagGrant, JWT_BEARER } from './id-jag.grant';

/**
 * What an `OAuthProxy` is made of: its records, client registry, upstream client, token issuer and
 * endpoints. Apart from the `OAuthProxy` front so that importing `mcpkit/auth` (for a token verifier)
 * loads none of it: it is loaded when a proxy is constructed.
 */
export class OAuthProxyServer {
  private readonly records: ProxyRecords;
  private readonly clients: ClientRegistry;
  private readonly upstream: UpstreamClient;
  private readonly tokens: TokenIssuer;
  private readonly authorizeEndpoint: AuthorizeEndpoint;
  private readonly tokenEndpoint: TokenEndpoint;
  private readonly proofs: ProofChecker;
  private readonly outage: OutageLog;
  private currentIssuer?: string;

  constructor(private readonly options: OAuthProxyOptions) {
    if (resources(options).length === 0) throw new Error('OAuthProxy: give the resource (the MCP server URL) tokens are issued for');
    this.currentIssuer = options.issuer?.replace(/\/$/, '');
    this.records = new ProxyRecords(options.store ?? new InMemoryOAuthProxyStore());
    this.clients = new ClientRegistry(this.records, options);
    this.upstream = new UpstreamClient(options.upstream, () => options.upstream.redirectUri ?? this.url('/callback'));
    this.tokens = new TokenIssuer(this.records, options.signingKey, () => this.currentIssuer);
    const paths = { authorize: this.path('/authorize'), consent: this.path('/authorize/consent'), callback: this.path('/callback') };
    const logged = { ...options, logError: options.logError ?? ((m: string, e?: unknown) => console.error(m, e)) };
    this.outage = new OutageLog(logged.logError, 'A store of the OAuth proxy');
    this.authorizeEndpoint = new AuthorizeEndpoint(this.records, this.clients, this.upstream, logged, paths, () => this.currentIssuer!);
    this.proofs = proofChecker(options.dpop ?? {}, faultsRaised(options.dpop?.store ?? new InMemoryDpopStore()));
    // Assertions used are kept apart from proofs seen (unless one shared store is given): a flood of proofs
    // filling the one in this process must not stop enterprise sign-ins.
    const assertions = faultsRaised(options.dpop?.store ?? new InMemoryDpopStore());
    const idJag = options.enterprise
      ? new IdJagGrant(
          options.enterprise,
          () => this.currentIssuer!,
          resources(options),
          options.scopesSupported,
          assertions,
          options.upstream.issuer,
        )
      : undefined;
    this.tokenEndpoint = new TokenEndpoint(this.records, this.clients, this.tokens, options, this.proofs, () => this.url('/token'), idJag);
  }

  /** The issuer URL: put it in the resource server's `authorizationServers`. */
  get issuer(): string | undefined {
    return this.currentIssuer;
  }

  /** A TokenVerifier for the tokens this proxy issues (signature, issuer, audience = the resource, not revoked). */
  verifier(): TokenVerifier {
    return this.tokens.verifier();
  }

  /**
   * The upstream provider's tokens behind a request's credentials (`ctx.auth`), for calling the
   * provider's API on the user's behalf; undefined once the grant is revoked or expired.
   */
  async upstreamTokens(auth: AuthInfo | undefined): Promise<UpstreamTokens | undefined> {
    const gid = auth?.claims?.gid;
    if (typeof gid !== 'string') return undefined;
    return (await this.records.get<{ tokens: UpstreamTokens }>(`upstream:${gid}`))?.tokens;
  }

  /** RFC 8414 metadata. */
  metadata(): Record<string, unknown> {
    return {
      issuer: this.currentIssuer,
      authorization_endpoint: this.url('/authorize'),
      token_endpoint: this.url('/token'),
      registration_endpoint: this.url('/register'),
      revocation_endpoint: this.url('/revoke'),
      jwks_uri: this.url('/.well-known/jwks.json'),
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', ...(this.options.enterprise ? [JWT_BEARER] : [])],
      ...(this.options.enterprise ? { authorization_grant_profiles_supported: [ID_JAG_PROFILE] } : {}),
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
      client_id_metadata_document_supported: this.clients.metadataDocuments,
      authorization_response_iss_parameter_supported: true,
      dpop_signing_alg_values_supported: [...this.proofs.algorithms],
      ...(this.options.scopesSupported ? { scopes_supported: this.options.scopesSupported } : {}),
    };
  }

  /** A Node request listener serving only the proxy's endpoints (404 elsewhere). */
  listener(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return async (req, res) => {
      if (!(await this.handle(req, res))) sendJson(res, 404, { error: 'not_found' }, false);
    };
  }

  /** Serves the request when it is for one of the proxy's endpoints; resolves false otherwise (the caller routes it on). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = this.route(url.pathname, req.method ?? 'GET');
    if (!route) return false;
    try {
      this.currentIssuer ??= issuerFromRequest(req);
      if (req.method === 'OPTIONS') return this.preflight(res);
      const params = await readParams(req, url);
      await route(req, res, params);
      this.outage.recovered();
    } catch (error) {
      if (res.headersSent) return true;
      if (error instanceof OAuthError) sendError(res, error);
      else if (error instanceof AuthorizationServerError) {
        // A store the proxy could not reach: the deployment's fault, not the client's.
        this.outage.failed(error);
        sendError(res, new OAuthError('temporarily_unavailable', 'The authorization server is unavailable; try again later', 503));
      } else {
        (this.options.logError ?? console.error)('OAuth proxy: unexpected fault', error);
        sendJson(res, 500, { error: 'server_error', error_description: 'The authorization server failed' });
      }
    }
    return true;
  }

  private route(
    pathname: string,
    method: string,
  ): ((req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>) => Promise<void>) | undefined {
    const base = this.basePath();
    const get = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    const post = method === 'POST' || method === 'OPTIONS';
    const metadata = async (_q: IncomingMessage, res: ServerResponse) => sendJson(res, 200, this.metadata());
    if (get && (pathname === `/.well-known/oauth-authorization-server${base}` || pathname === `${base}/.well-known/openid-configuration`))
      return metadata;
    if (get && pathname === `${base}/.well-known/jwks.json`) return async (_q, res) => sendJson(res, 200, await this.tokens.jwks());
    if (post && pathname === `${base}/register`)
      return async (_q, res, p) => sendJson(res, 201, withoutNulls(await this.clients.register(p)));
    if (method === 'GET' && pathname === `${base}/authorize`) return (_q, res, p) => this.authorizeEndpoint.authorize(res, p);
    if (method === 'POST' && pathname === `${base}/authorize/consent`) return (q, res, p) => this.authorizeEndpoint.consent(q, res, p);
    if (method === 'GET' && pathname === `${base}/callback`) return (_q, res, p) => this.authorizeEndpoint.callback(res, p);
    if (post && pathname === `${base}/token`) return (q, res, p) => this.tokenEndpoint.token(q, res, p);
    if (post && pathname === `${base}/revoke`) return (q, res, p) => this.tokenEndpoint.revoke(q, res, p);
    return undefined;
  }

  private preflight(res: ServerResponse): true {
    res.statusCode = 204;
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, DPoP, MCP-Protocol-Version');
    res.end();
    return true;
  }

  private basePath(): string {
    return this.currentIssuer ? new URL(this.currentIssuer).pathname.replace(/\/$/, '') : '';
  }

  private path(suffix: string): string {
    return `${this.options.issuer ? new URL(this.options.issuer).pathname.replace(/\/$/, '') : ''}${suffix}`;
  }

  private url(suffix: string): string {
    return `${this.currentIssuer}${suffix}`;
  }
}

/** `store`, its faults raised as AuthorizationServerError: answered 503, and logged once per outage. */
function faultsRaised(store: DpopStore): DpopStore {
  const fault = (cause: unknown): never => {
    throw new AuthorizationServerError('The DPoP store failed', { cause });
  };
  return { firstUse: (key, ttlMs) => store.firstUse(key, ttlMs).catch(fault), nonceKey: () => store.nonceKey().catch(fault) };
}

/** Without a configured issuer, a loopback Host names it (development); any other Host could be an attacker's. */
function issuerFromRequest(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  if (!isLoopbackHost(hostname)) throw new Error(`OAuthProxy: set the issuer option (a request came for ${host || 'no host'})`);
  return `http://${host}`;
}

function withoutNulls(client: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(client).filter(([, v]) => v !== undefined));
}
