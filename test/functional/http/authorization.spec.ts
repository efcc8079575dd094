import request from 'supertest';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import {
  CanActivate,
  Complete,
  GuardContext,
  McpApplication,
  McpContext,
  McpModule,
  Middleware,
  Prompt,
  Public,
  RequireScopes,
  Resource,
  Tool,
  UseGuards,
  UseMiddleware,
} from '../../../src';
import { ACCEPT_BOTH } from '../../helpers/http-app';
import { httpTransport } from '../../../src/http';
import type { RequestListener } from '../../../src/http';

/** Who the guards saw, and what the middleware saw of ctx.auth. */
const seen: { guards: GuardContext[]; middlewareSubjects: (string | undefined)[] } = { guards: [], middlewareSubjects: [] };

@injectable()
class AllowList {
  readonly subjects = new Set(['alice']);
}

@injectable()
class SubjectGuard implements CanActivate {
  constructor(private readonly allow: AllowList) {}
  canActivate(context: GuardContext): boolean {
    seen.guards.push(context);
    return this.allow.subjects.has(context.auth.subject ?? '');
  }
}

@injectable()
class BusinessHoursGuard implements CanActivate {
  async canActivate(context: GuardContext): Promise<boolean> {
    await Promise.resolve();
    return context.auth.claims?.open === true;
  }
}

class NoteArgs {
  @IsString() topic!: string;
}

const spyAuth: Middleware = async (invocation, next) => {
  seen.middlewareSubjects.push(invocation.context?.auth?.subject);
  return next();
};

@injectable()
@RequireScopes('notes:read')
class NoteHandlers {
  @Tool({ input: null })
  readNote() {
    return 'a note';
  }

  @Tool({ input: null })
  @RequireScopes('notes:write')
  writeNote() {
    return 'written';
  }

  @Tool({ input: null })
  @Public()
  health() {
    return 'ok';
  }

  @Resource({ uri: 'notes://index' })
  index() {
    return 'index';
  }

  @Resource({ uriTemplate: 'notes://{id}' })
  @RequireScopes('notes:admin')
  note(vars: Record<string, string>) {
    return `note ${vars.id}`;
  }

  @Prompt({ input: NoteArgs })
  @RequireScopes('notes:write')
  draft(args: NoteArgs) {
    return `Draft about ${args.topic}`;
  }

  @Complete({ prompt: 'draft', argument: 'topic' })
  topics() {
    return ['cats', 'dogs'];
  }
}

@injectable()
class OpenHandlers {
  @Tool({ input: null })
  echo() {
    return 'echo';
  }

  @Tool({ input: null, annotations: { destructiveHint: true }, _meta: { team: 'ops' } })
  @UseGuards(SubjectGuard, BusinessHoursGuard)
  @RequireScopes('ops')
  deploy() {
    return 'deployed';
  }

  @Tool({ input: null })
  @UseMiddleware(spyAuth)
  whoami(ctx: McpContext) {
    return ctx.auth?.subject ?? 'anonymous';
  }

  @Prompt({ input: null })
  open() {
    return 'open prompt';
  }
}

@McpModule({ providers: [AllowList, NoteHandlers, OpenHandlers], server: { name: 'authz', version: '1.0.0' } })
class AuthzModule {}

/** `Authorization: Bearer subject;scope scope;open` -> AuthInfo; no header -> anonymous. */
function authenticate({ headers }: { headers: Record<string, string | string[] | undefined> }) {
  const value = headers.authorization;
  if (typeof value !== 'string') return undefined;
  const [subject, scopes = '', open] = value.replace('Bearer ', '').split(';');
  return { subject, scopes: scopes.split(' ').filter(Boolean), claims: { open: open === 'open' } };
}

describe('per-handler authorization over HTTP (authenticate hook -> ctx.auth)', () => {
  let app: McpApplication;
  let callback: RequestListener;

  beforeAll(async () => {
    app = await McpApplication.create(AuthzModule, {
      pageSize: 2,
      logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    });
    callback = httpTransport(app, { sessions: false, responseMode: 'json', authenticate }).callback();
  });
  afterAll(() => app.close());
  beforeEach(() => {
    seen.guards = [];
    seen.middlewareSubjects = [];
  });

  let id = 0;
  async function rpc(method: string, params: Record<string, unknown>, token?: string) {
    const headers: Record<string, string> = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await request(callback).post('/mcp').set(headers).send({ jsonrpc: '2.0', id: ++id, method, params });
    return res.body as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string; data?: { requiredScopes?: string[] } };
    };
  }
  const call = (name: string, token?: string) => rpc('tools/call', { name, arguments: {} }, token);
  async function listAll(method: string, key: string, token?: string): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const { result } = await rpc(method, cursor ? { cursor } : {}, token);
      names.push(...(result![key] as { name: string }[]).map((d) => d.name));
      cursor = result!.nextCursor as string | undefined;
    } while (cursor);
    return names;
  }

  it('enforces class-level scopes on tools/call, with -32003 naming every scope the tool needs', async () => {
    expect((await call('readNote', 'bob;notes:read')).result).toEqual({ content: [{ type: 'text', text: 'a note' }] });
    const denied = await call('readNote', 'bob;other');
    expect(denied.error).toMatchObject({ code: -32003, data: { requiredScopes: ['notes:read'] } });
    expect(denied.error!.message).toContain('notes:read');
  });

  it('adds method-level scopes to the class-level ones (the union is required and named)', async () => {
    expect((await call('writeNote', 'bob;notes:write')).error).toMatchObject({
      code: -32003,
      data: { requiredScopes: ['notes:read', 'notes:write'] },
    });
    expect((await call('writeNote', 'bob;notes:read')).error).toMatchObject({
      code: -32003,
      data: { requiredScopes: ['notes:read', 'notes:write'] },
    });
    expect((await call('writeNote', 'bob;notes:write notes:read')).result).toEqual({ content: [{ type: 'text', text: 'written' }] });
  });

  it('refuses an unauthenticated caller on a protected handler, and lets it use @Public and unrestricted ones', async () => {
    expect((await call('readNote')).error).toMatchObject({ code: -32003, data: { requiredScopes: ['notes:read'] } });
    expect((await call('health')).result).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect((await call('echo')).result).toEqual({ content: [{ type: 'text', text: 'echo' }] });
  });

  it('enforces scopes on resources/read (static and template) and prompts/get', async () => {
    expect((await rpc('resources/read', { uri: 'notes://index' }, 'bob;other')).error).toMatchObject({
      code: -32003,
      data: { requiredScopes: ['notes:read'] },
    });
    expect((await rpc('resources/read', { uri: 'notes://index' }, 'bob;notes:read')).result).toMatchObject({
      contents: [{ text: 'index' }],
    });
    expect((await rpc('resources/read', { uri: 'notes://7' }, 'bob;notes:read')).error).toMatchObject({
      code: -32003,
      data: { requiredScopes: ['notes:admin', 'notes:read'] },
    });
    expect((await rpc('resources/read', { uri: 'notes://7' }, 'bob;notes:read notes:admin')).result).toMatchObject({
      contents: [{ text: 'note 7' }],
    });
    expect((await rpc('prompts/get', { name: 'draft', arguments: { topic: 'x' } }, 'bob;notes:read')).error).toMatchObject({
      code: -32003,
      data: { requiredScopes: ['notes:read', 'notes:write'] },
    });
    expect((await rpc('prompts/get', { name: 'draft', arguments: { topic: 'x' } }, 'bob;notes:read notes:write')).result).toMatchObject({
      messages: [{ content: { text: 'Draft about x' } }],
    });
  });

  it('refuses completion of a prompt the caller may not use, and completes it for one who may', async () => {
    const params = { ref: { type: 'ref/prompt', name: 'draft' }, argument: { name: 'topic', value: '' } };
    expect((await rpc('completion/complete', params, 'bob;notes:read')).error).toMatchObject({ code: -32003 });
    expect((await rpc('completion/complete', params, 'bob;notes:read notes:write')).result).toMatchObject({
      completion: { values: ['cats', 'dogs'] },
    });
  });

  it('runs guards (sync with an injected service, then async) that see the caller, kind, name and metadata', async () => {
    expect((await call('deploy', 'alice;ops;open')).result).toEqual({ content: [{ type: 'text', text: 'deployed' }] });
    expect(seen.guards[0]).toMatchObject({
      auth: { subject: 'alice' },
      kind: 'tool',
      name: 'deploy',
      handler: 'OpenHandlers.deploy',
      annotations: { destructiveHint: true },
      _meta: { team: 'ops' },
      requiredScopes: ['ops'],
    });
    // The injected allow-list refuses bob; the async guard refuses alice outside business hours.
    expect((await call('deploy', 'bob;ops;open')).error).toMatchObject({ code: -32003, data: { requiredScopes: ['ops'] } });
    expect((await call('deploy', 'alice;ops;closed')).error).toMatchObject({ code: -32003 });
    // Scopes are checked before any guard runs; anonymous callers never reach a guard.
    seen.guards = [];
    expect((await call('deploy', 'alice;;open')).error).toMatchObject({ code: -32003, data: { requiredScopes: ['ops'] } });
    expect((await call('deploy')).error).toMatchObject({ code: -32003 });
    expect(seen.guards).toEqual([]);
  });

  it('lets per-handler middleware see ctx.auth', async () => {
    expect((await call('whoami', 'carol;')).result).toEqual({ content: [{ type: 'text', text: 'carol' }] });
    expect(seen.middlewareSubjects).toEqual(['carol']);
  });

  it('shows each caller only the tools, resources, templates and prompts it may use, following cursors per caller', async () => {
    expect(await listAll('tools/list', 'tools')).toEqual(['health', 'echo', 'whoami']);
    expect(await listAll('tools/list', 'tools', 'bob;notes:read')).toEqual(['readNote', 'health', 'echo', 'whoami']);
    expect(await listAll('tools/list', 'tools', 'bob;notes:read notes:write')).toEqual([
      'readNote',
      'writeNote',
      'health',
      'echo',
      'whoami',
    ]);
    expect(await listAll('tools/list', 'tools', 'alice;ops;open')).toEqual(['health', 'echo', 'deploy', 'whoami']);
    expect(await listAll('tools/list', 'tools', 'bob;ops;open')).toEqual(['health', 'echo', 'whoami']);
    expect(await listAll('resources/list', 'resources')).toEqual([]);
    expect(await listAll('resources/list', 'resources', 'bob;notes:read')).toEqual(['index']);
    expect(await listAll('resources/templates/list', 'resourceTemplates', 'bob;notes:read')).toEqual([]);
    expect(await listAll('resources/templates/list', 'resourceTemplates', 'bob;notes:read notes:admin')).toEqual(['note']);
    expect(await listAll('prompts/list', 'prompts', 'bob;notes:read')).toEqual(['open']);
    expect(await listAll('prompts/list', 'prompts', 'bob;notes:write notes:read')).toEqual(['draft', 'open']);
  });
});
