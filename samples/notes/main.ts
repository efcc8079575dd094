import 'reflect-metadata';
import { JwtVerifier, type ResourceServerOptions } from '../../src/auth';
import { McpApplication } from '../../src';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppModule } from './app.module';
import { loadOpenApiDocument, registerOpenApiTools } from './openapi-tools';
import { httpServer } from '../../src/http';
import { stdio } from '../../src/stdio';

/**
 * openapi.json sits next to main.ts. tsc does not copy it into dist/, so the compiled main.js
 * (dist/samples/notes) reads it from the sources (samples/notes).
 */
function openApiFile(): string {
  const beside = join(__dirname, 'openapi.json');
  return existsSync(beside) ? beside : join(__dirname, '..', '..', '..', 'samples', 'notes', 'openapi.json');
}

/**
 * Authorization from the environment: with MCP_AUTH_ISSUER set, every HTTP request needs a bearer JWT
 * from that authorization server, issued for this server (MCP_AUTH_RESOURCE, default the URL it
 * listens on). Keys come from MCP_AUTH_JWKS_URI, or from the issuer's metadata. Tokens start with
 * `notes:read`; deleting a note asks the client to step up to `notes:write`.
 */
async function authFromEnvironment(): Promise<ResourceServerOptions | undefined> {
  const issuer = process.env.MCP_AUTH_ISSUER;
  if (!issuer) return undefined;
  const jwksUri = process.env.MCP_AUTH_JWKS_URI ?? (await discoverJwksUri(issuer));
  return {
    authorizationServers: [issuer],
    resource: process.env.MCP_AUTH_RESOURCE || undefined,
    scopesSupported: ['notes:read', 'notes:write'],
    challengeScopes: ['notes:read'],
    resourceName: 'mcpkit notes sample',
    verifier: new JwtVerifier({ issuer, jwksUri }),
  };
}

/** The `jwks_uri` of an authorization server, from its RFC 8414 (or OpenID) metadata. */
async function discoverJwksUri(issuer: string): Promise<string> {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const res = await fetch(new URL(path, issuer)).catch(() => undefined);
    if (!res?.ok) continue;
    const { jwks_uri: jwksUri } = (await res.json()) as { jwks_uri?: string };
    if (jwksUri) return jwksUri;
  }
  throw new Error(`No jwks_uri in the metadata of ${issuer}: set MCP_AUTH_JWKS_URI`);
}

/**
 * Starts the notes sample: Streamable HTTP on 127.0.0.1:$PORT/mcp (default 3000), or stdio with
 * `--stdio`. `--page-size=N` sets the page size of list methods.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const pageSize = Number(/--page-size=(\d+)/.exec(args.join(' '))?.[1] ?? 100);
  const app = await McpApplication.create(AppModule, { pageSize });
  app.enableShutdownHooks();
  // Tools generated from an OpenAPI document; they call NOTES_API_BASE_URL, or answer with its examples when unset.
  registerOpenApiTools(app, loadOpenApiDocument(openApiFile()), { baseUrl: process.env.NOTES_API_BASE_URL || undefined });
  if (args.includes('--stdio')) {
    await app.listen(stdio());
    process.stderr.write('notes: serving MCP over stdio\n');
    return;
  }
  const auth = await authFromEnvironment();
  const http = await app.listen(httpServer({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1', auth }));
  process.stderr.write(`notes: serving MCP at ${http.url}${auth ? ` (bearer tokens from ${auth.authorizationServers[0]})` : ''}\n`);
}

main().catch((error) => {
  process.stderr.write(`notes: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
