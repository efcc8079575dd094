import type { AuthInfo } from '../context/mcp-context';
import { derivePrincipal } from './principal';

/**
 * AuthInfo from verified claims (a JWT payload or an introspection answer), with its principal; the
 * token itself is never kept. `issuer` stands in for a missing `iss` (introspection answers may omit it).
 */
export function authInfoFromClaims(claims: Readonly<Record<string, unknown>>, issuer?: string): AuthInfo {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const subject = str(claims.sub);
  const clientId = str(claims.client_id) ?? str(claims.azp);
  const iss = str(claims.iss) ?? issuer;
  return {
    principal: derivePrincipal(iss, subject, clientId),
    subject,
    issuer: iss,
    clientId,
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
