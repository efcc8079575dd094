import 'reflect-metadata';
import { McpApplication, McpModule, type ClassType } from 'mcpkit';
import { JwtVerifier } from 'mcpkit/auth';
import { TicketsApi } from './tickets.client';
import { TicketsTools } from './tickets.tools';
import { httpServer } from '../../src/http';

export function ticketsModule(api: TicketsApi): ClassType {
  @McpModule({
    server: { name: 'tickets', version: '1.0.0', instructions: 'Reads and changes tickets of the ticket tracker.' },
    providers: [{ provide: TicketsApi, useValue: api }, TicketsTools],
  })
  class TicketsModule {}
  return TicketsModule;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (see examples/rest-oauth/README.md)`);
  return value;
}

/** The `jwks_uri` of an authorization server, from its RFC 8414 or OpenID metadata. */
async function discoverJwksUri(issuer: string): Promise<string> {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const res = await fetch(new URL(path, issuer)).catch(() => undefined);
    const jwksUri = res?.ok ? ((await res.json()) as { jwks_uri?: string }).jwks_uri : undefined;
    if (jwksUri) return jwksUri;
  }
  throw new Error(`No jwks_uri in the metadata of ${issuer}: set MCP_AUTH_JWKS_URI`);
}

/**
 * An OAuth-protected MCP server in front of the tickets REST API, on http://127.0.0.1:$PORT/mcp
 * (default 3000). MCP_AUTH_ISSUER names the authorization server; TICKETS_API_URL and
 * TICKETS_API_KEY the REST API and the key this server calls it with.
 */
async function main(): Promise<void> {
  const issuer = required('MCP_AUTH_ISSUER');
  const api = new TicketsApi(required('TICKETS_API_URL'), required('TICKETS_API_KEY'));
  const app = await McpApplication.create(ticketsModule(api));
  app.enableShutdownHooks();
  const http = await app.listen(
    httpServer({
      port: Number(process.env.PORT ?? 3000),
      auth: {
        authorizationServers: [issuer],
        resource: process.env.MCP_AUTH_RESOURCE || undefined, // the public URL, when clients reach the server through a proxy
        scopesSupported: ['tickets:read', 'tickets:write'],
        challengeScopes: ['tickets:read'], // least privilege: clients start with reading and step up to writing
        resourceName: 'Tickets',
        verifier: new JwtVerifier({ issuer, jwksUri: process.env.MCP_AUTH_JWKS_URI ?? (await discoverJwksUri(issuer)) }),
      },
    }),
  );
  console.error(`tickets: serving MCP at ${http.url} (tokens from ${issuer})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
