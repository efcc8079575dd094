import request from 'supertest';
import { injectable } from 'tsyringe';
import {
  CanActivate,
  McpApplication,
  McpError,
  McpModule,
  Middleware,
  Public,
  RequireScopes,
  Tool,
  UseGuards,
  UseMiddleware,
} from '../../src';
import { McpTestClient } from '../../src/testing';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { connect } from '../helpers/in-memory';
import { httpTransport } from '../../src/http';

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

describe('per-handler authorization', () => {
  afterEach(() => jest.restoreAllMocks());

  describe('over a transport without authentication (in memory, not the local user)', () => {
    @injectable()
    @RequireScopes('admin')
    class AdminTools {
      @Tool({ input: null })
      @RequireScopes('admin:write', 'audit')
      purge() {
        return 'purged';
      }

      @Tool({ input: null, taskSupport: 'optional' })
      report() {
        return 'report';
      }

      @Tool({ input: null })
      @Public()
      status() {
        return 'fine';
      }
    }

    @McpModule({ providers: [AdminTools] })
    class AdminModule {}

    /** A client that is not the local user: what a remote, unauthenticated caller gets. */
    const remote = async () => {
      const app = await McpApplication.create(AdminModule, quiet);
      return { app, client: await McpTestClient.connect(app.connectInMemory({ local: false })) };
    };

    it('refuses a protected tool with JSON-RPC error -32003 and data.requiredScopes (not an isError result)', async () => {
      const { app, client } = await remote();
      const error = (await client.request('tools/call', { name: 'purge', arguments: {} }).catch((e: unknown) => e)) as McpError;
      expect(error).toBeInstanceOf(McpError);
      expect(error.code).toBe(-32003);
      expect(error.data).toEqual({ requiredScopes: ['admin', 'admin:write', 'audit'] });
      expect(await client.request('tools/call', { name: 'status', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'fine' }] });
      expect(await client.request('tools/list')).toEqual({ tools: [expect.objectContaining({ name: 'status' })] });
      await app.close();
    });

    it('refuses a forbidden call made as a task before any task is created', async () => {
      const { app, client } = await remote();
      const error = (await client.request('tools/call', { name: 'report', arguments: {}, task: {} }).catch((e: unknown) => e)) as McpError;
      expect(error.code).toBe(-32003);
      expect(await client.request('tasks/list')).toMatchObject({ tasks: [] });
      await app.close();
    });

    it('waives every requirement for the local user of an in-process (or stdio) connection', async () => {
      const { app, client } = await connect(AdminModule);
      expect(await client.request('tools/call', { name: 'purge', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'purged' }] });
      expect(((await client.request('tools/list')) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
        'purge',
        'report',
        'status',
      ]);
      await app.close();
    });
  });

  describe('per-handler middleware', () => {
    const order: string[] = [];
    const mark =
      (name: string): Middleware =>
      async (invocation, next) => {
        order.push(`${name}>${invocation.handler}`);
        const result = await next();
        order.push(`<${name}`);
        return result;
      };

    @injectable()
    @UseMiddleware(mark('class1'))
    @UseMiddleware(mark('class2'))
    class Traced {
      @Tool({ input: null })
      @UseMiddleware(mark('method1'), mark('method2'))
      @UseMiddleware(mark('method3'))
      traced() {
        order.push('handler');
        return 'ok';
      }

      @Tool({ input: null })
      plain() {
        order.push('plain');
        return 'ok';
      }
    }

    @McpModule({ providers: [Traced] })
    class TracedModule {}

    it('runs inside the application middleware: class-level first, then the method, each in source order', async () => {
      const { app, client } = await connect(TracedModule, { middleware: [mark('global')] });
      await client.request('tools/call', { name: 'traced', arguments: {} });
      expect(order).toEqual([
        'global>Traced.traced',
        'class1>Traced.traced',
        'class2>Traced.traced',
        'method1>Traced.traced',
        'method2>Traced.traced',
        'method3>Traced.traced',
        'handler',
        '<method3',
        '<method2',
        '<method1',
        '<class2',
        '<class1',
        '<global',
      ]);
      order.length = 0;
      await client.request('tools/call', { name: 'plain', arguments: {} });
      expect(order).toEqual([
        'global>Traced.plain',
        'class1>Traced.plain',
        'class2>Traced.plain',
        'plain',
        '<class2',
        '<class1',
        '<global',
      ]);
      await app.close();
    });
  });

  describe('definition mistakes', () => {
    it('refuses @Public together with @RequireScopes on the same method', async () => {
      @injectable()
      class Contradiction {
        @Tool({ input: null })
        @Public()
        @RequireScopes('x')
        both() {
          return '';
        }
      }
      @McpModule({ providers: [Contradiction] })
      class M {}
      await expect(McpApplication.create(M, quiet)).rejects.toThrow(
        '@Public on Contradiction.both: cannot be combined with @RequireScopes on the same target',
      );
    });

    it('refuses a guard class without canActivate, naming it', async () => {
      class NotAGuard {}
      @injectable()
      class Guarded {
        @Tool({ input: null })
        @UseGuards(NotAGuard as unknown as new () => CanActivate)
        guarded() {
          return '';
        }
      }
      @McpModule({ providers: [Guarded] })
      class M {}
      await expect(McpApplication.create(M, quiet)).rejects.toThrow('@UseGuards on Guarded.guarded: NotAGuard has no canActivate method');
    });

    it('refuses @RequireScopes without scopes or with a scope containing a space', () => {
      expect(() => RequireScopes()).not.toThrow();
      expect(() => {
        class C {
          @RequireScopes()
          m() {}
        }
        return C;
      }).toThrow('@RequireScopes on C.m: name at least one scope');
      expect(() => {
        @RequireScopes('a b')
        class D {}
        return D;
      }).toThrow('@RequireScopes on D: scopes must be non-empty strings');
    });
  });

  describe('list caching by visibility class', () => {
    @injectable()
    class Mixed {
      @Tool({ input: null })
      open() {
        return '';
      }
      @Tool({ input: null })
      @RequireScopes('a')
      needsA() {
        return '';
      }
    }
    @injectable()
    class OnlyOpen {
      @Tool({ input: null })
      open() {
        return '';
      }
    }

    const authenticate = ({ headers }: { headers: Record<string, string | string[] | undefined> }) =>
      typeof headers['x-scopes'] === 'string' ? { subject: 's', scopes: headers['x-scopes'].split(' ').filter(Boolean) } : undefined;

    async function lists(module: new () => unknown, scopes: (string | undefined)[]) {
      const app = await McpApplication.create(module, quiet);
      const callback = httpTransport(app, { sessions: false, responseMode: 'json', authenticate }).callback();
      const bodies: string[][] = [];
      for (const s of scopes) {
        const headers: Record<string, string> = { Accept: ACCEPT_BOTH, 'Content-Type': 'application/json' };
        if (s !== undefined) headers['X-Scopes'] = s;
        const res = await request(callback).post('/mcp').set(headers).send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        bodies.push((res.body.result.tools as { name: string }[]).map((t) => t.name));
      }
      await app.close();
      return bodies;
    }

    it('lists the same tools to every caller when no handler has requirements', async () => {
      @McpModule({ providers: [OnlyOpen] })
      class NoRequirements {}
      expect(await lists(NoRequirements, [undefined, 'a', 'b c'])).toEqual([['open'], ['open'], ['open']]);
    });

    it('lists to each caller what its scopes allow, whichever caller asked before', async () => {
      @McpModule({ providers: [Mixed] })
      class ScopedModule {}
      expect(await lists(ScopedModule, ['a', 'a unrelated', 'b', undefined, 'a'])).toEqual([
        ['open', 'needsA'],
        ['open', 'needsA'],
        ['open'],
        ['open'],
        ['open', 'needsA'],
      ]);
    });
  });
});
