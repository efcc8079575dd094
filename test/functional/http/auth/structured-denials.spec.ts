import { injectable } from 'tsyringe';
import request from 'supertest';
import {
  CanActivate,
  EmptyInput,
  FORBIDDEN_CODE,
  ForbiddenError,
  McpApplication,
  McpError,
  McpModule,
  RequireScopes,
  Tool,
  UseGuards,
} from '../../../../src';
import { StaticTokenVerifier } from '../../../../src/auth';
import { httpTransport } from '../../../../src/http';
import { McpTestClient } from '../../../../src/testing';

const ISSUER = 'https://as.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';
const CONTEXT_ID_KEY = 'io.modelcontextprotocol/authorization-context-id';

@injectable()
class NobodyGuard implements CanActivate {
  canActivate() {
    return false;
  }
}

@injectable()
class Handlers {
  @Tool({ description: 'Needs files:write' })
  @RequireScopes('files:write')
  write(_: EmptyInput) {
    return 'written';
  }

  @Tool({ description: 'Refused by its guard' })
  @UseGuards(NobodyGuard)
  guarded(_: EmptyInput) {
    return 'never';
  }

  @Tool({ description: 'Pays, after a fresh strong sign-in and a payment authorization' })
  pay(_: EmptyInput) {
    throw new ForbiddenError('Sign in again with a second factor to pay', [], {
      stepUp: { acrValues: ['urn:example:mfa'], maxAge: 60 },
      hints: [{ type: 'oauth_authorization_details', authorization_details: [{ type: 'payment_initiation', amount: '12.50' }] }],
      credentialDisposition: 'additional',
    });
  }

  @Tool({ description: 'Refuses with a hand-made error whose step-up has members of the wrong type' })
  handMade(_: EmptyInput) {
    throw new McpError(FORBIDDEN_CODE, 'Sign in again', { stepUp: { acrValues: 'urn:example:mfa', maxAge: 'soon' } });
  }
}

@McpModule({ providers: [Handlers, NobodyGuard], server: { name: 'denials', version: '1.0.0' } })
class DenialsModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };
const opened: McpApplication[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const tokens = {
  reader: { subject: 'r', scopes: ['files:read'], expiresAt: inAnHour() },
  writer: { subject: 'w', scopes: ['files:read', 'files:write'], expiresAt: inAnHour() },
};

async function serve(structuredDenials: boolean) {
  const app = await McpApplication.create(DenialsModule, { ...quiet, structuredDenials });
  opened.push(app);
  return httpTransport(app, {
    sessions: false,
    auth: { authorizationServers: [ISSUER], resource: RESOURCE, verifier: new StaticTokenVerifier(tokens) },
  }).callback();
}

function call(callback: Awaited<ReturnType<typeof serve>>, name: string, token: string, meta?: Record<string, unknown>) {
  return request(callback)
    .post('/mcp')
    .set({ Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25', Authorization: `Bearer ${token}` })
    .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) } });
}

/**
 * Structured authorization denials (SEP-2643, a draft, behind `structuredDenials`): a refusal carries
 * `data.authorization` (reason, a correlation handle, the remedies) beside the HTTP challenge, which
 * stays what drives the client; a step-up refusal is RFC 9470's 401.
 */
describe('structured authorization denials', () => {
  it('a missing scope: 403 insufficient_scope, and the envelope with a fresh context id each time', async () => {
    const callback = await serve(true);
    const first = await call(callback, 'write', 'reader');
    expect(first.status).toBe(403);
    expect(first.headers['www-authenticate']).toMatch(/^Bearer error="insufficient_scope", scope="files:read files:write"/);
    expect(first.body.error).toMatchObject({
      code: -32003,
      data: { requiredScopes: ['files:write'], authorization: { reason: 'insufficient_authorization' } },
    });
    const id = first.body.error.data.authorization.authorizationContextId as string;
    expect(id).toMatch(/^authzctx_[A-Za-z0-9_-]{16}$/);
    const second = await call(callback, 'write', 'reader');
    expect(second.body.error.data.authorization.authorizationContextId).not.toBe(id);
    // A retry echoes the handle; its credential alone decides (SEP-2643): the same credential is refused again,
    // under a new handle, and a sufficient one is served whatever handle it carries.
    const same = await call(callback, 'write', 'reader', { [CONTEXT_ID_KEY]: id });
    expect(same.status).toBe(403);
    expect(same.body.error.data.authorization.authorizationContextId).not.toBe(id);
    for (const handle of [id, 'authzctx_nobody-knows', 42]) {
      const retry = await call(callback, 'write', 'writer', { [CONTEXT_ID_KEY]: handle });
      expect(retry.status).toBe(200);
      expect(retry.body.result.content[0].text).toBe('written');
    }
  });

  it('a guard: 403 with the envelope and no remedy', async () => {
    const res = await call(await serve(true), 'guarded', 'writer');
    expect(res.status).toBe(403);
    expect(res.body.error.data.authorization).toEqual({ reason: 'insufficient_authorization', authorizationContextId: expect.any(String) });
  });

  it('a step-up: 401 insufficient_user_authentication (RFC 9470), and the remedies and disposition in the envelope', async () => {
    const res = await call(await serve(true), 'pay', 'writer');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_user_authentication", error_description="Sign in again with a second factor to pay", ' +
        'acr_values="urn:example:mfa", max_age="60", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    expect(res.body.error.data).toEqual({
      stepUp: { acrValues: ['urn:example:mfa'], maxAge: 60 },
      authorization: {
        reason: 'insufficient_authorization',
        authorizationContextId: expect.stringMatching(/^authzctx_/),
        credentialDisposition: 'additional',
        remediationHints: [
          { type: 'oauth_authorization_details', authorization_details: [{ type: 'payment_initiation', amount: '12.50' }] },
          { type: 'step_up', acr_values: 'urn:example:mfa', max_age: 60 },
        ],
      },
    });
  });

  it('a hand-made refusal whose step-up has members of the wrong type: still a step-up challenge, without them', async () => {
    const res = await call(await serve(true), 'handMade', 'writer');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer error="insufficient_user_authentication", error_description="Sign in again", ' +
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('ForbiddenError refuses a malformed step-up where it is made', () => {
    expect(() => new ForbiddenError('x', [], { stepUp: { acrValues: 'urn:example:mfa' as unknown as string[] } })).toThrow(
      /acrValues must be an array of strings/,
    );
    expect(() => new ForbiddenError('x', [], { stepUp: { maxAge: -1 } })).toThrow(/maxAge must be a whole number/);
    expect(() => new ForbiddenError('x', [], { stepUp: { maxAge: 1.5 } })).toThrow(TypeError);
  });

  it('off by default: the same refusals, without the envelope', async () => {
    const callback = await serve(false);
    const scope = await call(callback, 'write', 'reader');
    expect(scope.status).toBe(403);
    expect(scope.body.error.data).toEqual({ requiredScopes: ['files:write'] });
    const stepUp = await call(callback, 'pay', 'writer');
    expect(stepUp.status).toBe(401);
    expect(stepUp.headers['www-authenticate']).toMatch(/^Bearer error="insufficient_user_authentication"/);
    expect(stepUp.body.error.data.authorization).toBeUndefined();
  });

  it('over a connection with no HTTP challenge (stdio-like), the envelope is the whole signal', async () => {
    const app = await McpApplication.create(DenialsModule, { ...quiet, structuredDenials: true });
    opened.push(app);
    const client = await McpTestClient.connect(app.connectInMemory({ auth: tokens.reader, local: false }));
    const refused = await client.request('tools/call', { name: 'write', arguments: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).data).toMatchObject({
      requiredScopes: ['files:write'],
      authorization: { reason: 'insufficient_authorization', authorizationContextId: expect.stringMatching(/^authzctx_/) },
    });
    await client.close();
  });
});
