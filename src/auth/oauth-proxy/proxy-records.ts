import { AuthorizationServerError } from '../auth.errors';
import type { UpstreamTokens } from './oauth-proxy.options';
import type { OAuthProxyStore } from './oauth-proxy.store';

/** A client the proxy knows: registered (RFC 7591) or read from its metadata document. */
export interface ClientRecord {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic';
  client_secret?: string;
  client_secret_expires_at?: number;
  grant_types?: string[];
  scope?: string;
  client_id_issued_at?: number;
}

/** An authorization request the proxy accepted, on its way through consent and the upstream. */
export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  scopes: string[];
  resource: string;
  csrf: string;
  /** RFC 9449 §10 `dpop_jkt`: the code may be redeemed only with a proof signed by this key. */
  dpopJkt?: string;
}

/** What a proxy authorization code or a grant stands for. */
export interface GrantRecord {
  grantId: string;
  clientId: string;
  scopes: string[];
  resource: string;
  subject: string;
  /** The key the grant's tokens are bound to (DPoP): a public client's refreshes must prove it again. */
  jkt?: string;
}

/** The upstream's answer for a grant, kept server-side. */
export interface UpstreamRecord {
  tokens: UpstreamTokens;
  identity: Record<string, unknown>;
}

/** A proxy authorization code: the grant it will start, bound to the request's redirect_uri and PKCE challenge. */
export interface CodeRecord extends GrantRecord {
  redirectUri: string;
  codeChallenge: string;
  dpopJkt?: string;
  upstream: UpstreamRecord;
}

/**
 * The store, read and written as JSON under typed key families. A store fault is raised as an
 * AuthorizationServerError: the proxy answers 503 and its verifier's callers do too.
 */
export class ProxyRecords {
  constructor(private readonly store: OAuthProxyStore) {}

  async get<T>(key: string): Promise<T | undefined> {
    return parse<T>(await this.store.get(key).catch(storeFault));
  }

  async take<T>(key: string): Promise<T | undefined> {
    return parse<T>(await this.store.take(key).catch(storeFault));
  }

  put(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    return this.store.put(key, JSON.stringify(value), ttlSeconds * 1000).catch(storeFault);
  }

  delete(key: string): Promise<void> {
    return this.store.delete(key).catch(storeFault);
  }
}

function storeFault(cause: unknown): never {
  throw new AuthorizationServerError("The OAuth proxy's store failed", { cause });
}

function parse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
