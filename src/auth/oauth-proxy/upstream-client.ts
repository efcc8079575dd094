import type { UpstreamIdentity, UpstreamProviderOptions, UpstreamTokens } from './oauth-proxy.options';
import { OAuthError } from './oauth.error';
import { s256 } from './pkce';

interface Endpoints {
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint?: string;
}

/** The proxy as a confidential client of the upstream provider: its authorize URL, code exchange and identity. */
export class UpstreamClient {
  private endpoints?: Promise<Endpoints>;

  constructor(
    private readonly options: UpstreamProviderOptions,
    private readonly redirectUri: () => string,
  ) {}

  /** The provider's endpoints: as configured, the rest from its discovery document (read once). */
  resolve(): Promise<Endpoints> {
    const o = this.options;
    if (o.authorizationEndpoint && o.tokenEndpoint) {
      return Promise.resolve({
        authorization_endpoint: o.authorizationEndpoint,
        token_endpoint: o.tokenEndpoint,
        userinfo_endpoint: o.userinfoEndpoint,
      });
    }
    this.endpoints ??= this.discover().catch((error: unknown) => {
      this.endpoints = undefined;
      throw error;
    });
    return this.endpoints;
  }

  async authorizeUrl(state: string, verifier: string): Promise<string> {
    const url = new URL((await this.resolve()).authorization_endpoint);
    const params: Record<string, string> = {
      ...this.options.extraAuthorizeParams,
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: this.redirectUri(),
      scope: (this.options.scopes ?? ['openid']).join(' '),
      state,
      code_challenge: s256(verifier),
      code_challenge_method: 'S256',
    };
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    return url.toString();
  }

  /** Exchanges the upstream's code with the fixed secret; any refusal is an upstream fault, not the MCP client's. */
  async exchange(code: string, verifier: string): Promise<UpstreamTokens> {
    const { token_endpoint } = await this.resolve();
    const o = this.options;
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.redirectUri(), code_verifier: verifier });
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    if (o.tokenEndpointAuthMethod === 'client_secret_basic') {
      headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(o.clientId)}:${encodeURIComponent(o.clientSecret)}`).toString('base64')}`;
    } else {
      form.set('client_id', o.clientId);
      form.set('client_secret', o.clientSecret);
    }
    const response = await fetch(token_endpoint, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(10_000) });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new OAuthError(
        'server_error',
        `The identity provider refused the code (${typeof body.error === 'string' ? body.error : response.status})`,
        502,
      );
    }
    return body as UpstreamTokens;
  }

  /** The default identity: the id_token's `sub` (the token came straight from the provider over TLS), else userinfo's `sub` or `id`. */
  async identify(tokens: UpstreamTokens): Promise<UpstreamIdentity> {
    if (typeof tokens.id_token === 'string') {
      const claims = decodePayload(tokens.id_token);
      const aud = claims.aud;
      const audiences = Array.isArray(aud) ? aud : [aud];
      if (typeof claims.sub === 'string' && audiences.includes(this.options.clientId)) return { subject: claims.sub, claims };
    }
    const info = await this.userinfo(tokens);
    const subject = info.sub ?? info.id;
    if (typeof subject !== 'string' && typeof subject !== 'number')
      throw new OAuthError('server_error', 'The identity provider named no subject', 502);
    return { subject: String(subject), claims: info };
  }

  async userinfo(tokens: UpstreamTokens): Promise<Record<string, unknown>> {
    const { userinfo_endpoint } = await this.resolve();
    if (!userinfo_endpoint) throw new OAuthError('server_error', 'The identity provider has no userinfo endpoint', 502);
    const response = await fetch(userinfo_endpoint, {
      headers: { Authorization: `Bearer ${tokens.access_token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new OAuthError('server_error', `The identity provider's userinfo answered ${response.status}`, 502);
    return (await response.json()) as Record<string, unknown>;
  }

  private async discover(): Promise<Endpoints> {
    const issuer = this.options.issuer;
    if (!issuer) throw new Error('OAuthProxy upstream: give issuer, or authorizationEndpoint and tokenEndpoint');
    const base = issuer.replace(/\/$/, '');
    const origin = new URL(issuer).origin;
    const path = new URL(issuer).pathname.replace(/\/$/, '');
    for (const url of [`${base}/.well-known/openid-configuration`, `${origin}/.well-known/oauth-authorization-server${path}`]) {
      // One of two well-known locations: an unreachable one is simply the next one's turn (the error after the loop says none answered).
      const response = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(10_000) }).catch(
        () => undefined,
      );
      if (!response?.ok) continue;
      const doc = (await response.json()) as Partial<Endpoints>;
      if (typeof doc.authorization_endpoint === 'string' && typeof doc.token_endpoint === 'string') {
        const o = this.options;
        return {
          authorization_endpoint: o.authorizationEndpoint ?? doc.authorization_endpoint,
          token_endpoint: o.tokenEndpoint ?? doc.token_endpoint,
          userinfo_endpoint: o.userinfoEndpoint ?? doc.userinfo_endpoint,
        };
      }
    }
    throw new Error(`OAuthProxy upstream: no discovery document at ${issuer}`);
  }
}

function decodePayload(jwt: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
