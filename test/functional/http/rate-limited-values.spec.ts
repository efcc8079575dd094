import { IsString } from 'class-validator';
import request from 'supertest';
import { injectable } from 'tsyringe';
import { McpApplication, McpModule, RateLimitedError, Tool } from '../../../src';
import { httpTransport } from '../../../src/http';

// An application's own RateLimitedError: a wait that is no number never reaches a client's Retry-After.

class WaitInput {
  @IsString() wait!: string;
}

@injectable()
class Limited {
  @Tool({ description: 'Refuses, asking the client to wait `wait` ms (a number, "NaN" or "Infinity")' })
  busy(input: WaitInput): string {
    throw new RateLimitedError('Busy', { retryAfterMs: Number(input.wait) });
  }
}

@McpModule({ server: { name: 'limited', version: '1.0.0' }, providers: [Limited] })
class LimitedModule {}

async function call(wait: string) {
  const errors: string[] = [];
  const app = await McpApplication.create(LimitedModule, {
    logger: {
      error: (m, e) => void errors.push(`${m} ${e instanceof Error ? e.message : ''}`),
      warn: () => undefined,
      info: () => undefined,
    },
  });
  try {
    const res = await request(httpTransport(app, { sessions: false }).callback())
      .post('/mcp')
      .set({ Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'busy', arguments: { wait } } });
    return { res, errors };
  } finally {
    await app.close();
  }
}

describe("an application's RateLimitedError", () => {
  it('answers 429 with Retry-After in whole seconds', async () => {
    const { res } = await call('1500');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.body).toMatchObject({ error: { code: -32023, data: { retryAfterMs: 1500 } } });
  });

  it.each(['NaN', 'Infinity', '-Infinity'])(
    'is refused where it is made when its wait is %s: no Retry-After, the mistake logged',
    async (wait) => {
      const { res, errors } = await call(wait);
      expect(res.status).toBe(200);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.body).toMatchObject({ result: { isError: true } });
      expect(JSON.stringify(res.body)).not.toMatch(/NaN|Infinity|null/);
      expect(errors.join('\n')).toContain(`retryAfterMs must be a finite number, not ${wait}`);
    },
  );
});
