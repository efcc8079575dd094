/**
 * mcpkit's tools/call over stateless HTTP in both eras with a bearer JWT (local keys, as a cached JWKS),
 * found in the token cache and verified on every request, beside the same without auth.
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { httpLoad, isCall, isModernCall, rows } from './measure';
import { CALL, MODERN_CALL } from './requests';

const AUTH_WORKLOAD = 'tools/call over HTTP, bearer JWT vs none';
const AUTH_LABELS = { none: 'no auth', ignored: 'no auth, token sent', cached: 'JWT (cache warm)', uncached: 'JWT (no cache)' } as const;

/**
 * mcpkit's tools/call in both eras with no auth, with the token sent to a server that ignores it (the
 * HTTP cost of the header alone), with an RS256 JWT verified once and then found in the
 * token cache (the default), and with the cache off (verified on every request), alternating `runs`
 * times. Local key set: the JWKS-cached path.
 */
export async function authLoad(runs: number): Promise<void> {
  const issuer = 'https://as.bench.example';
  const resource = 'https://mcp.bench.example/mcp';
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256' };
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ sub: 'bench', scope: 'tools', client_id: 'bench' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setAudience(resource)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(privateKey);
  const jwt = { AUTH_JWKS: JSON.stringify({ keys: [jwk] }), AUTH_ISSUER: issuer, AUTH_RESOURCE: resource };
  const bearer = { authorization: `Bearer ${token}` };
  for (let run = 0; run < runs; run++) {
    for (const [mode, body, expect, era] of [
      ['stateless', CALL, isCall, '2025-11-25'],
      ['modern', MODERN_CALL, isModernCall, '2026-07-28'],
    ] as const) {
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, { env: {}, headers: {}, label: `${era}, ${AUTH_LABELS.none}` });
      // The same bytes on the wire, unread: what carrying an 800-byte header costs HTTP itself.
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, { env: {}, headers: bearer, label: `${era}, ${AUTH_LABELS.ignored}` });
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, { env: jwt, headers: bearer, label: `${era}, ${AUTH_LABELS.cached}` });
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, {
        env: { ...jwt, AUTH_CACHE: '0' },
        headers: bearer,
        label: `${era}, ${AUTH_LABELS.uncached}`,
      });
    }
  }
}

/** The extra server CPU of an authenticated call over the same call without auth, per era. */
export function authOverheadLines(): string[] {
  const lines: string[] = [];
  for (const era of ['2025-11-25', '2026-07-28']) {
    const row = (label: string) => rows.find((r) => r.workload === AUTH_WORKLOAD && r.impl === `${era}, ${label}`);
    const none = row(AUTH_LABELS.none);
    if (!none?.cpu) continue;
    for (const label of [AUTH_LABELS.ignored, AUTH_LABELS.cached, AUTH_LABELS.uncached]) {
      const r = row(label);
      if (!r?.cpu) continue;
      lines.push(
        `  ${AUTH_WORKLOAD}, ${era}: ${label} adds ${(r.cpu - none.cpu).toFixed(1)} µs of server CPU per request (${none.cpu.toFixed(1)} -> ${r.cpu.toFixed(1)} µs), throughput ${((r.rps / none.rps - 1) * 100).toFixed(1)}%`,
      );
    }
  }
  return lines;
}
