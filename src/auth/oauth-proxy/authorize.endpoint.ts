import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientRegistry } from './client-registry';
import { consentPage } from './consent-page';
import type { OAuthProxyOptions } from './oauth-proxy.options';
import { OAuthError } from './oauth.error';
import { randomToken, sameSecret, tokenKey } from './pkce';
import { cookie, param, redirect, sendHtml, withQuery } from './proxy-http';
import type { CodeRecord, GrantRecord, PendingAuthorization, ProxyRecords, UpstreamRecord } from './proxy-records';
import type { UpstreamClient } from './upstream-client';

const CSRF_COOKIE = 'mcpkit_oauth_csrf';

interface UpstreamState extends PendingAuthorization {
  verifier: string;
}

/** Paths of the proxy's endpoints, under its issuer. */
export interface ProxyPaths {
  authorize: string;
  consent: string;
  callback: string;
}

/** /authorize, the consent step and the upstream's /callback: from the MCP client's request to its code. */
export class AuthorizeEndpoint {
  constructor(
    private readonly records: ProxyRecords,
    private readonly clients: ClientRegistry,
    private readonly upstream: UpstreamClient,
    private readonly options: OAuthProxyOptions,
    private readonly paths: ProxyPaths,
    private readonly issuer: () => string,
  ) {}

  private get pendingTtl(): number {
    return this.options.ttl?.pending ?? 600;
  }

  /** Validates the request; errors before the redirect_uri is trusted are answered here, later ones go to the client. */
  async authorize(res: ServerResponse, params: Record<string, unknown>): Promise<void> {
    const clientId = param(params, 'client_id', true)!;
    const client = await this.clients.find(clientId);
    const redirectUri = param(params, 'redirect_uri', true)!;
    if (!client.redirect_uris.includes(redirectUri))
      throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
    const state = param(params, 'state');
    let pending: PendingAuthorization;
    try {
      if (param(params, 'response_type') !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code');
      const codeChallenge = param(params, 'code_challenge');
      if (!codeChallenge || param(params, 'code_challenge_method') !== 'S256')
        throw new OAuthError('invalid_request', 'PKCE with code_challenge_method S256 is required');
      pending = {
        clientId,
        redirectUri,
        codeChallenge,
        state,
        scopes: this.scopes(param(params, 'scope')),
        resource: this.resource(param(params, 'resource')),
        csrf: randomToken(),
        dpopJkt: param(params, 'dpop_jkt'),
      };
    } catch (error) {
      if (error instanceof OAuthError) return this.sendBack(res, { redirectUri, state }, error);
      throw error;
    }
    if (this.options.consent?.skip) return this.toUpstream(res, pending);
    const requestId = randomToken();
    await this.records.put(`pending:${requestId}`, pending, this.pendingTtl);
    const secure = this.issuer().startsWith('https:') ? '; Secure' : '';
    sendHtml(res, consentPage(client, pending, requestId, this.paths.consent), {
      'Set-Cookie': `${CSRF_COOKIE}=${pending.csrf}; Path=${this.paths.consent}; HttpOnly; SameSite=Lax${secure}; Max-Age=${this.pendingTtl}`,
    });
  }

  /** The consent form's answer: the CSRF token must match both the pending request and this browser's cookie. */
  async consent(req: IncomingMessage, res: ServerResponse, params: Record<string, unknown>): Promise<void> {
    const requestId = param(params, 'request', true)!;
    const csrf = param(params, 'csrf', true)!;
    const browser = cookie(req, CSRF_COOKIE) ?? '';
    const pending = await this.records.get<PendingAuthorization>(`pending:${requestId}`);
    if (!pending || !sameSecret(csrf, pending.csrf) || !sameSecret(browser, pending.csrf)) {
      throw new OAuthError('invalid_request', 'The consent request is unknown, expired or forged', 403);
    }
    await this.records.delete(`pending:${requestId}`);
    if (param(params, 'decision') !== 'approve') {
      return redirect(
        res,
        withQuery(pending.redirectUri, {
          error: 'access_denied',
          error_description: 'The user denied access',
          state: pending.state,
          iss: this.issuer(),
        }),
      );
    }
    await this.toUpstream(res, pending);
  }

  /** The upstream's answer: the state is taken once; its code is exchanged and the client gets the proxy's own code. */
  async callback(res: ServerResponse, params: Record<string, unknown>): Promise<void> {
    const stateId = param(params, 'state', true)!;
    const flow = await this.records.take<UpstreamState>(`upstream-state:${stateId}`);
    if (!flow) throw new OAuthError('invalid_request', 'Unknown or expired state');
    const back = (error: string, description: string) => this.sendBack(res, flow, new OAuthError(error, description));
    const upstreamError = param(params, 'error');
    if (upstreamError)
      return back(upstreamError === 'access_denied' ? 'access_denied' : 'server_error', 'The identity provider did not sign the user in');
    const code = param(params, 'code');
    if (!code) return back('server_error', 'The identity provider sent no code');
    let grant: GrantRecord;
    let upstream: UpstreamRecord;
    try {
      const tokens = await this.upstream.exchange(code, flow.verifier);
      const identity = this.options.identify
        ? await this.options.identify(tokens, () => this.upstream.userinfo(tokens))
        : await this.upstream.identify(tokens);
      grant = {
        grantId: randomToken(16),
        clientId: flow.clientId,
        scopes: flow.scopes,
        resource: flow.resource,
        subject: identity.subject,
      };
      // The upstream's tokens wait in the code; they are kept for the grant once the code is redeemed.
      upstream = { tokens, identity: identity.claims };
    } catch (error) {
      this.options.logError?.('OAuth proxy: the upstream sign-in failed', error);
      return back('server_error', 'The identity provider could not be reached or refused the sign-in');
    }
    const proxyCode = randomToken();
    const record: CodeRecord = {
      ...grant,
      redirectUri: flow.redirectUri,
      codeChallenge: flow.codeChallenge,
      dpopJkt: flow.dpopJkt,
      upstream,
    };
    await this.records.put(tokenKey('code', proxyCode), record, this.options.ttl?.code ?? 120);
    redirect(res, withQuery(flow.redirectUri, { code: proxyCode, state: flow.state, iss: this.issuer() }));
  }

  private async toUpstream(res: ServerResponse, pending: PendingAuthorization): Promise<void> {
    const state = randomToken();
    const verifier = randomToken(48);
    let url: string;
    try {
      url = await this.upstream.authorizeUrl(state, verifier);
    } catch (error) {
      // The client and its redirect_uri are trusted by now: it hears of the outage there (RFC 6749 §4.1.2.1).
      this.options.logError?.('OAuth proxy: the identity provider could not be reached', error);
      return this.sendBack(
        res,
        pending,
        new OAuthError('temporarily_unavailable', 'The identity provider could not be reached; try again later'),
      );
    }
    await this.records.put(`upstream-state:${state}`, { ...pending, verifier } satisfies UpstreamState, this.pendingTtl);
    redirect(res, url);
  }

  /** An error for a client whose redirect_uri is trusted: sent back there, with its state and this issuer (RFC 9207). */
  private sendBack(res: ServerResponse, to: { redirectUri: string; state?: string }, error: OAuthError): void {
    redirect(
      res,
      withQuery(to.redirectUri, { error: error.error, error_description: error.description, state: to.state, iss: this.issuer() }),
    );
  }

  private scopes(scope: string | undefined): string[] {
    const supported = this.options.scopesSupported;
    const asked = scope ? [...new Set(scope.split(' ').filter(Boolean))] : (supported ?? []);
    const unknown = supported ? asked.filter((s) => !supported.includes(s)) : [];
    if (unknown.length) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
    return asked;
  }

  private resource(resource: string | undefined): string {
    const allowed = resources(this.options);
    if (resource === undefined) return allowed[0];
    if (!allowed.includes(resource)) throw new OAuthError('invalid_target', 'This server issues no tokens for that resource');
    return resource;
  }
}

export function resources(options: OAuthProxyOptions): string[] {
  return Array.isArray(options.resource) ? options.resource : [options.resource];
}
