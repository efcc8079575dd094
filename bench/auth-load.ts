/**
 * mcpkit's tools/call over stateless HTTP in both eras with a bearer JWT (local keys, as a cached JWKS),
 * found in the token cache and verified on every request, beside the same without auth.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { httpLoad, isCall, isModernCall, rows } from './measure';
import { CALL, MODERN_CALL } from './requests';

const AUTH_WORKLOAD = 'tools/call over HTTP, bearer JWT vs none';
const AUTH_LABELS = {
  none: 'no auth',
  ignored: 'no auth, token sent',
  cached: 'JWT (cache warm)',
  uncached: 'JWT (no cache)',
  dpop: 'DPoP-bound JWT (cache warm)',
} as const;

/**
 * mcpkit's tools/call in both eras with no auth, with the token sent to a server that ignores it (the
 * HTTP cost of the header alone), with an RS256 JWT verified once and then found in the
 * token cache (the default), with the cache off (verified on every request), and with a DPoP-bound
 * JWT (cache warm) and a fresh ES256 proof per request, alternating `runs` times. Local key set: the
 * JWKS-cached path.
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
  const dpop = await dpopClient(resource, async (jkt) =>
    new SignJWT({ sub: 'bench', scope: 'tools', client_id: 'bench', cnf: { jkt } })
      .setProtectedHeader({ alg: 'RS256', kid: 'bench', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience(resource)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(privateKey),
  );
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
      await httpLoad(AUTH_WORKLOAD, 'mcpkit', mode, body, 1, expect, {
        env: { ...jwt, AUTH_DPOP: '1' },
        headers: dpop.headers,
        perRequest: dpop.proof,
        label: `${era}, ${AUTH_LABELS.dpop}`,
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
    for (const label of [AUTH_LABELS.ignored, AUTH_LABELS.cached, AUTH_LABELS.uncached, AUTH_LABELS.dpop]) {
      const r = row(label);
      if (!r?.cpu) continue;
      lines.push(
        `  ${AUTH_WORKLOAD}, ${era}: ${label} adds ${(r.cpu - none.cpu).toFixed(1)} µs of server CPU per request (${none.cpu.toFixed(1)} -> ${r.cpu.toFixed(1)} µs), throughput ${((r.rps / none.rps - 1) * 100).toFixed(1)}%`,
      );
    }
    const bearer = row(AUTH_LABELS.cached);
    const dpop = row(AUTH_LABELS.dpop);
    if (bearer?.cpu && dpop?.cpu)
      lines.push(
        `  ${AUTH_WORKLOAD}, ${era}: a DPoP proof adds ${(dpop.cpu - bearer.cpu).toFixed(1)} µs of server CPU per request over a bearer JWT`,
      );
  }
  return lines;
}

/**
 * A DPoP client for the load: an ES256 key, a token bound to it (made by `token` from the key's
 * thumbprint), and a fresh proof per request, signed synchronously with node:crypto (each proof's jti
 * may be used once, so none can be made ahead).
 */
async function dpopClient(
  resource: string,
  token: (jkt: string) => Promise<string>,
): Promise<{ headers: Record<string, string>; proof: () => Record<string, string> }> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const bound = await token(await calculateJwkThumbprint(jwk));
  const ath = createHash('sha256').update(bound).digest('base64url');
  const header = Buffer.from(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk })).toString('base64url');
  const proof = () => {
    const claims = { htm: 'POST', htu: resource, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ath };
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    return { dpop: `${input}.${signature}` };
  };
  return { headers: { authorization: `DPoP ${bound}` }, proof };
}
