import { OAuthError } from './oauth.error';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * Checks a redirect URI a client registers: https, http on a loopback host, or a private-use scheme
 * of a native app (`com.example.app:/cb`); never a fragment, nor a scheme a browser runs.
 */
export function checkRedirectUri(value: unknown): string {
  if (typeof value !== 'string') throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be strings');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthError('invalid_redirect_uri', `Not a URL: ${value}`);
  }
  if (url.hash) throw new OAuthError('invalid_redirect_uri', 'A redirect URI has no fragment');
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return value;
  if (scheme === 'http' && isLoopbackHost(url.hostname)) return value;
  if (scheme !== 'http' && !['javascript', 'data', 'file', 'vbscript', 'blob'].includes(scheme)) return value;
  throw new OAuthError('invalid_redirect_uri', `A redirect URI must be https, loopback http or a private-use scheme: ${value}`);
}
