import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * Starts oidc-provider (test/fixtures/oidc-provider.mjs, an ES module: jest loads CommonJS) on
 * loopback port 0 and resolves with its issuer URL once it listens.
 */
export async function startOidcProvider(
  env: Record<string, string> = {},
): Promise<{ issuer: string; child: ChildProcess; stop: () => Promise<void> }> {
  const script = join(__dirname, '..', 'fixtures', 'oidc-provider.mjs');
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`oidc-provider did not start: ${output}`));
    }, 15_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /ISSUER (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`oidc-provider exited with ${code}: ${output}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { issuer, child, stop };
}

/**
 * Plays the user's browser: follows the authorization redirects (keeping the provider's cookies)
 * until one goes to `redirectUri`, and returns that URL's query (code, state, iss).
 */
export async function authorizeWithoutBrowser(authorizationUrl: URL, redirectUri: string): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl.href;
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, { redirect: 'manual', headers: { Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`authorization stopped at ${url} with HTTP ${res.status}: ${await res.text()}`);
    const next = new URL(location, url);
    if (next.href.startsWith(redirectUri)) return next.searchParams;
    url = next.href;
  }
  throw new Error('too many redirects during authorization');
}

/** What the principal tests read from the provider's discovery document (`/.well-known/openid-configuration`). */
export interface ProviderMetadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  introspection_endpoint: string;
  registration_endpoint: string;
}

export async function providerMetadata(issuer: string): Promise<ProviderMetadata> {
  const res = await fetch(new URL('/.well-known/openid-configuration', issuer));
  if (!res.ok) throw new Error(`discovery of ${issuer} answered HTTP ${res.status}`);
  return (await res.json()) as ProviderMetadata;
}

/**
 * A client_credentials access token of one of the fixture's static clients (secret `<client id>-secret`,
 * HTTP Basic) for `resource` (RFC 8707): a JWT, or an opaque token when the resource ends in /opaque.
 */
export async function clientCredentialsToken(
  metadata: ProviderMetadata,
  clientId: string,
  resource: string,
  scope = 'mcp:tools',
): Promise<string> {
  const res = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(`${clientId}-secret`)}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }).toString(),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`no token for ${clientId} (HTTP ${res.status}): ${JSON.stringify(body)}`);
  return body.access_token;
}
