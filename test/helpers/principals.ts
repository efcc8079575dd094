import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, Field, McpApplication, McpContext, McpModule, Resource, Tool } from '../../src';
import { IntrospectionVerifier, JwtVerifier } from '../../src/auth';
import type { ApplicationOptions } from '../../src';
import type { HttpOptions } from '../../src/http';
import type { TokenVerifier } from '../../src/auth';
import { ACCEPT_BOTH, initializeBody } from './http-app';
import { envelope, perRequestBody, perRequestHeaders, postRaw, type RawReply } from './per-request-http';
import { clientCredentialsToken, type ProviderMetadata } from './oidc-provider';
import { deferred, type Deferred } from './wait-for';
import { httpServer } from '../../src/http';

/**
 * Shared by the principal tests (test/interop/principals*.oidc.spec.ts): tools that tell who calls and
 * run tasks and multi round-trip requests, mcpkit apps protected by a real authorization server
 * (oidc-provider, test/fixtures/oidc-provider.mjs) through JwtVerifier or IntrospectionVerifier, and
 * raw requests of both protocol eras carrying a bearer token.
 */

export class KeyInput {
  @Field('A key of the test: which gate to wait on, which confirmation this is') @IsString() key!: string;
}

/** Gates the tests open by hand, so that a task is still running while other clients poke at it (no timing). */
const gates = new Map<string, Deferred<void>>();
export function gate(key: string): Deferred<void> {
  let g = gates.get(key);
  if (!g) gates.set(key, (g = deferred<void>()));
  return g;
}
export function openAllGates(): void {
  for (const g of gates.values()) g.resolve();
}

/** Side effects of `confirm`, as `<key> by <principal>`: what a replayed requestState would make happen. */
export const effects: string[] = [];

export const MARKER = 'principals://marker';

@injectable()
export class PrincipalTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    const auth = ctx.auth;
    return JSON.stringify({
      principal: auth?.principal ?? null,
      subject: auth?.subject ?? null,
      clientId: auth?.clientId ?? null,
      issuer: auth?.issuer ?? null,
    });
  }

  @Tool({ description: 'Waits on its gate, then answers with its caller', taskSupport: 'optional' })
  async job(input: KeyInput, ctx: McpContext) {
    await new Promise<void>((resolve, reject) => {
      const reason = () => (ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error(String(ctx.signal.reason)));
      ctx.signal.addEventListener('abort', () => reject(reason()), { once: true });
      void gate(input.key).promise.then(resolve);
    });
    return `job ${input.key} for ${ctx.auth?.principal}`;
  }

  @Tool({ description: 'Asks for a go-ahead (a multi round-trip request in 2026-07-28), then does its side effect' })
  async confirm(input: KeyInput, ctx: McpContext) {
    const answer = await ctx.elicit(
      { message: `Go ahead with ${input.key}?`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      { key: 'go' },
    );
    if (answer.action !== 'accept') return `not confirmed: ${answer.action}`;
    effects.push(`${input.key} by ${ctx.auth?.principal}`);
    return `confirmed ${input.key} by ${ctx.auth?.principal}`;
  }

  @Resource({ uri: MARKER, mimeType: 'text/plain' })
  marker() {
    return 'marker';
  }
}

@McpModule({ providers: [PrincipalTools], server: { name: 'principals', version: '1.0.0' } })
export class PrincipalModule {}

/** The two verifiers: JWT access tokens (RFC 9068) checked against the JWKS, opaque ones asked about (RFC 7662). */
export type VerifierKind = 'jwt' | 'introspection';
export const VERIFIERS: [string, VerifierKind][] = [
  ['JwtVerifier (JWT access tokens)', 'jwt'],
  ['IntrospectionVerifier (opaque tokens)', 'introspection'],
];

/** The endpoint path: the fixture issues opaque tokens for resources ending in /opaque, JWTs for the others. */
export function endpointPath(kind: VerifierKind): string {
  return kind === 'jwt' ? '/mcp' : '/opaque';
}

export function verifierFor(
  kind: VerifierKind,
  metadata: ProviderMetadata,
  options: { requireAccessTokenType?: boolean } = {},
): TokenVerifier {
  if (kind === 'jwt') return new JwtVerifier({ issuer: metadata.issuer, jwksUri: metadata.jwks_uri, ...options });
  return new IntrospectionVerifier({
    endpoint: metadata.introspection_endpoint,
    clientId: 'introspector',
    clientSecret: 'introspector-secret',
    issuer: metadata.issuer,
  });
}

/** The principal mcpkit derives (src/auth/principal.ts), spelled out independently. */
export const clientPrincipal = (clientId: string, issuer: string) => `client:${encodeURIComponent(clientId)}@${encodeURIComponent(issuer)}`;
export const subjectPrincipal = (subject: string, issuer: string) => `sub:${encodeURIComponent(subject)}@${encodeURIComponent(issuer)}`;

/** The expected principal of each static client of the fixture. */
export function principalOf(clientId: string, issuer: string): string {
  const sub = { 'user-alice': 'alice', 'user-bob': 'bob' }[clientId];
  return sub ? subjectPrincipal(sub, issuer) : clientPrincipal(clientId, issuer);
}

/**
 * Pairs of different callers: machine clients whose tokens carry no `sub` (before principals they
 * shared everything), and users whose tokens carry one.
 */
export const PAIRS: [string, string][] = [
  ['machine-a', 'machine-b'],
  ['user-alice', 'user-bob'],
];

export interface ServedApp {
  app: McpApplication;
  /** The MCP endpoint this instance is reached at. */
  url: string;
  /** The resource its tokens must be issued for. */
  resource: string;
  /** Errors the application logged. */
  errors: string[];
  /** An access token of `clientId` for this app's resource (cached). */
  token(clientId: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * An mcpkit app listening on loopback port 0 as a resource server of the provider. The resource is the
 * bound URL unless given (instances behind one load balancer share one).
 */
export async function serveApp(
  kind: VerifierKind,
  metadata: ProviderMetadata,
  options: { http?: HttpOptions; app?: ApplicationOptions; resource?: string; verifier?: TokenVerifier } = {},
): Promise<ServedApp> {
  const errors: string[] = [];
  const text = (e: unknown) => (e instanceof Error ? String(e) : typeof e === 'string' ? e : JSON.stringify(e));
  const app = await McpApplication.create(PrincipalModule, {
    logger: {
      error: (m: string, e?: unknown) => errors.push(`${m}${e ? `: ${text(e)}` : ''}`),
      warn: () => undefined,
      info: () => undefined,
    },
    ...options.app,
  });
  const { url } = await app.listen(
    httpServer({
      port: 0,
      host: '127.0.0.1',
      keepAliveMs: 0,
      path: endpointPath(kind),
      ...options.http,
      auth: {
        authorizationServers: [metadata.issuer],
        scopesSupported: ['mcp:tools'],
        verifier: options.verifier ?? verifierFor(kind, metadata),
        ...(options.resource ? { resource: options.resource } : {}),
      },
    }),
  );
  const resource = options.resource ?? url;
  const tokens = new Map<string, Promise<string>>();
  return {
    app,
    url,
    resource,
    errors,
    token: (clientId) => {
      let t = tokens.get(clientId);
      if (!t) tokens.set(clientId, (t = clientCredentialsToken(metadata, clientId, resource)));
      return t;
    },
    close: () => app.close(),
  };
}

/** Headers of a 2025-11-25 request with a bearer token, on a session when given. */
export function handshakeHeaders(token: string, sessionId?: string): Record<string, string> {
  return {
    accept: ACCEPT_BOTH,
    'content-type': 'application/json',
    'mcp-protocol-version': '2025-11-25',
    authorization: `Bearer ${token}`,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
}

let nextId = 1;

/** A 2025-11-25 JSON-RPC request (or, without `id`, notification) over raw HTTP. */
export function rpc(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  sessionId?: string,
): Promise<RawReply> {
  return postRaw(url, { jsonrpc: '2.0', id: `r-${nextId++}`, method, params }, handshakeHeaders(token, sessionId));
}

/** Initializes a 2025-11-25 session as `token`'s caller and returns its id. */
export async function openSession(url: string, token: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: handshakeHeaders(token), body: JSON.stringify(initializeBody()) });
  const sessionId = res.headers.get('mcp-session-id');
  await res.text();
  if (res.status !== 200 || !sessionId) throw new Error(`initialize answered HTTP ${res.status} without a session`);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: handshakeHeaders(token, sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered HTTP ${initialized.status}`);
  return sessionId;
}

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The 2026-07-28 envelope of a client that declares elicitation and the tasks extension. */
export const withTasks = () =>
  envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } } });

/** A 2026-07-28 request with a bearer token: conforming headers (Mcp-Method, Mcp-Name), the envelope unless `_meta` is given. */
export function postPerRequestAs(url: string, token: string, method: string, params: Record<string, unknown> = {}): Promise<RawReply> {
  const body = perRequestBody(method, params);
  return postRaw(url, body, perRequestHeaders(body, { authorization: `Bearer ${token}` }));
}

/** The text of a tool result. */
export function textOf(result: Record<string, unknown> | undefined): string {
  return ((result?.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');
}
