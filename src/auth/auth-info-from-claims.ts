import type { AuthInfo } from '../context/mcp-context';

/** AuthInfo from verified claims (a JWT payload or an introspection answer); the token itself is never kept. */
export function authInfoFromClaims(claims: Readonly<Record<string, unknown>>): AuthInfo {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    subject: str(claims.sub),
    clientId: str(claims.client_id) ?? str(claims.azp),
    scopes: scopesOf(claims),
    claims,
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
  };
}

/** Scopes from `scope` (space-separated, RFC 9068/7662) or `scp` (an array or a string, as some servers send). */
function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}
