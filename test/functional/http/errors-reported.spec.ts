import request from 'supertest';
import { EmptyInput, McpApplication, McpModule, Tool } from '../../../src';
import type { HttpOptions } from '../../../src/http';
import { UnauthorizedError } from '../../../src/auth';
import { RedisEventStore } from '../../../src/redis';
import { injectable } from 'tsyringe';
import { ACCEPT_BOTH, initializeBody } from '../../helpers/http-app';
import { waitFor } from '../../helpers/wait-for';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpTransport } from '../../../src/http';

@injectable()
class PingTools {
  @Tool({ description: 'Answers at once' })
  quick(_: EmptyInput) {
    return 'quick';
  }
}

@McpModule({ providers: [PingTools], server: { name: 'errors-reported', version: '1.0.0' } })
class ErrorsModule {}

async function logged(options: HttpOptions) {
  const errors: { message: string; error: unknown }[] = [];
  const app = await McpApplication.create(ErrorsModule, {
    logger: { error: (message, error) => void errors.push({ message, error }), warn: () => undefined, info: () => undefined },
  });
  const transport = httpTransport(app, options);
  return { app, errors, callback: transport.callback() };
}

/** Faults of user hooks and stores reach the server log; clients get a JSON-RPC answer, never a misleading one. */
describe('HTTP errors are reported, not swallowed', () => {
  it('answers a crashing authenticate hook with 500 and a JSON-RPC body, and logs the fault', async () => {
    const fault = new Error('token cache offline');
    const env = await logged({
      authenticate: () => {
        throw fault;
      },
    });
    try {
      const res = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
      expect(env.errors).toEqual([{ message: expect.stringMatching(/authenticate/), error: fault }]);
    } finally {
      await env.app.close();
    }
  });

  it('answers a refusal (UnauthorizedError) with 401, its challenge, and no log entry', async () => {
    const env = await logged({
      authenticate: () => {
        throw new UnauthorizedError('Unauthorized: token expired', 'Bearer error="invalid_token"');
      },
    });
    try {
      const res = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unauthorized: token expired' } });
      expect(env.errors).toEqual([]);
    } finally {
      await env.app.close();
    }
  });

  it('logs the connection errors of a RedisEventStore given without onError through the server logger', async () => {
    const store = new RedisEventStore(join(mkdtempSync(join(tmpdir(), 'mcpkit-none-')), 'redis.sock')); // nothing listens there
    const env = await logged({ eventStore: store });
    try {
      await waitFor(() => env.errors.length > 0, { timeoutMs: 10_000, what: 'a logged connection error' });
      expect(env.errors[0].message).toMatch(/event store/i);
      expect(String((env.errors[0].error as Error).message)).toMatch(/ENOENT|ECONNREFUSED/);
    } finally {
      await env.app.close();
      await store.close();
    }
  });
});
