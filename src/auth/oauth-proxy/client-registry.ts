import type { OAuthProxyOptions } from './oauth-proxy.options';
import { OAuthError } from './oauth.error';
import { randomToken } from './pkce';
import type { ClientRecord, ProxyRecords } from './proxy-records';
import { checkRedirectUri, isLoopbackHost } from './redirect-uris';

const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
const MAX_DOCUMENT_BYTES = 16 * 1024;
const DAY = 86_400;

/** Clients: those registered through /register (RFC 7591) and those named by a metadata document URL. */
export class ClientRegistry {
  constructor(
    private readonly records: ProxyRecords,
    private readonly options: OAuthProxyOptions,
  ) {}

  get metadataDocuments(): boolean {
    return this.options.clientMetadataDocuments?.enabled ?? true;
  }

  /** RFC 7591 registration: validates the metadata, issues a client_id (and a secret unless the client is public). */
  async register(metadata: Record<string, unknown>): Promise<ClientRecord> {
    const uris = metadata.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array');
    const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
    if (!AUTH_METHODS.includes(method as ClientRecord['token_endpoint_auth_method'])) {
      throw new OAuthError(
        'invalid_client_metadata',
        `Unsupported token_endpoint_auth_method ${typeof method === 'string' ? method : JSON.stringify(method)}`,
      );
    }
    const grants = metadata.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw new OAuthError('invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only');
    }
    const name = metadata.client_name;
    if (name !== undefined && typeof name !== 'string') throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
    const client: ClientRecord = {
      client_id: randomToken(16),
      client_name: name,
      redirect_uris: uris.map(checkRedirectUri),
      token_endpoint_auth_method: method as ClientRecord['token_endpoint_auth_method'],
      grant_types: grants as string[],
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(typeof metadata.scope === 'string' ? { scope: metadata.scope } : {}),
      ...(method === 'none' ? {} : { client_secret: randomToken(32), client_secret_expires_at: 0 }),
    };
    await this.records.put(`client:${client.client_id}`, client, this.options.ttl?.client ?? 90 * DAY);
    return client;
  }

  /** The client, or invalid_client: a registered id, or a metadata document URL fetched and cached. */
  async find(clientId: string): Promise<ClientRecord> {
    if (this.isDocumentUrl(clientId)) return this.fromDocument(clientId);
    const client = await this.records.get<ClientRecord>(`client:${clientId}`);
    if (!client) throw new OAuthError('invalid_client', 'Unknown client');
    return client;
  }

  private isDocumentUrl(clientId: string): boolean {
    if (!this.metadataDocuments) return false;
    return (
      clientId.startsWith('https://') ||
      (clientId.startsWith('http://') && this.options.clientMetadataDocuments?.allowLoopbackHttp === true)
    );
  }

  private async fromDocument(clientId: string): Promise<ClientRecord> {
    const cached = await this.records.get<ClientRecord>(`cimd:${clientId}`);
    if (cached) return cached;
    const url = this.documentUrl(clientId);
    let response: Response;
    try {
      response = await fetch(url, { redirect: 'error', headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(5_000) });
    } catch {
      throw new OAuthError('invalid_client', 'The client metadata document could not be fetched');
    }
    const text = await response.text();
    if (!response.ok || text.length > MAX_DOCUMENT_BYTES)
      throw new OAuthError('invalid_client', `The client metadata document answered ${response.status}`);
    const client = parseDocument(clientId, text);
    const ttl = Math.min(
      DAY,
      cacheSeconds(response.headers.get('cache-control')) ?? (this.options.clientMetadataDocuments?.cacheTtlMs ?? 300_000) / 1000,
    );
    if (ttl > 0) await this.records.put(`cimd:${clientId}`, client, ttl);
    return client;
  }

  /** The client_id URL, refused unless it is https (or loopback http when allowed), has a path and no fragment or credentials. */
  private documentUrl(clientId: string): URL {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw new OAuthError('invalid_client', 'The client_id is not a valid URL');
    }
    const loopbackHttp = url.protocol === 'http:' && isLoopbackHost(url.hostname);
    if ((url.protocol !== 'https:' && !loopbackHttp) || url.pathname === '/' || url.hash || url.username || url.password) {
      throw new OAuthError('invalid_client', 'A client_id URL must be https with a path');
    }
    const allow = this.options.clientMetadataDocuments?.allowHost;
    if (allow && !allow(url.hostname)) throw new OAuthError('invalid_client', 'Clients of this host are not accepted');
    return url;
  }
}

function parseDocument(clientId: string, text: string): ClientRecord {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new OAuthError('invalid_client', 'The client metadata document is not JSON');
  }
  if (!doc || typeof doc !== 'object' || doc.client_id !== clientId) {
    throw new OAuthError('invalid_client', 'The client metadata document does not name this client_id');
  }
  if (!Array.isArray(doc.redirect_uris) || doc.redirect_uris.length === 0)
    throw new OAuthError('invalid_client', 'The client metadata document lists no redirect_uris');
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new OAuthError('invalid_client', 'Client metadata documents must use token_endpoint_auth_method none');
  let redirectUris: string[];
  try {
    redirectUris = doc.redirect_uris.map(checkRedirectUri);
  } catch (error) {
    throw new OAuthError('invalid_client', (error as OAuthError).description);
  }
  return {
    client_id: clientId,
    client_name: typeof doc.client_name === 'string' ? doc.client_name : undefined,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'none',
  };
}

function cacheSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/no-store|no-cache/i.test(header)) return 0;
  const m = /max-age=(\d+)/i.exec(header);
  return m ? Number(m[1]) : undefined;
}
