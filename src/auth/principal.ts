import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '../context/mcp-context';
import { tokenDigest } from './token-cache';

/**
 * The principal of verified credentials: who owns the sessions, streams, tasks, `requestState` and
 * subscriptions the caller creates. It always exists for an authenticated caller and never equals
 * another client's or another issuer's:
 * - `sub:<subject>@<issuer>` when the credentials name a subject (a user, or a machine that has one);
 * - else `client:<client id>@<issuer>` (client_credentials tokens often carry no `sub`, RFC 7662 makes it optional);
 * - else `token:<SHA-256 of the token>`: credentials that name nobody are their own principal.
 * Parts are percent-encoded, so no subject, client id or issuer can forge another's principal.
 */
export function derivePrincipal(issuer: string | undefined, subject: string | undefined, clientId: string | undefined): string | undefined {
  const at = `@${encodeURIComponent(issuer ?? '')}`;
  if (subject) return `sub:${encodeURIComponent(subject)}${at}`;
  if (clientId) return `client:${encodeURIComponent(clientId)}${at}`;
  return undefined;
}

/**
 * `auth` with its principal: the one a verifier set, else derived from its issuer, subject and client
 * id, else (given the token) bound to the token itself. Undefined when none can be had: the caller
 * names nobody and no token identifies it, so it must not be served as anyone.
 */
export function withPrincipal(auth: AuthInfo, token?: string): AuthInfo | undefined {
  if (typeof auth.principal === 'string' && auth.principal) return auth;
  const issuer = auth.issuer ?? (typeof auth.claims?.iss === 'string' ? auth.claims.iss : undefined);
  const principal = derivePrincipal(issuer, auth.subject, auth.clientId) ?? (token ? `token:${tokenDigest(token)}` : undefined);
  return principal ? { ...auth, principal } : undefined;
}

/**
 * The owner key of what an authenticated caller creates (tasks, sessions, request state): apart from
 * every anonymous owner key (`ses:…`, `anonymous`, `local`, ''). Entry points give every AuthInfo a
 * principal; one that reaches here without (handed to a session directly) gets it derived the same way,
 * and one naming nobody gets a key that matches nothing, so it owns nothing of anyone's.
 */
export function ownerOf(auth: AuthInfo): string {
  const principal = typeof auth.principal === 'string' && auth.principal ? auth.principal : withPrincipal(auth)?.principal;
  return principal ? `p:${principal}` : `p:!unowned:${randomUUID()}`;
}

/** The AuthInfo of a connection given its caller (`connect`): one naming nobody makes the connection its own principal. */
export function connectionAuth(auth: AuthInfo): AuthInfo {
  return withPrincipal(auth) ?? { ...auth, principal: `connection:${randomUUID()}` };
}
