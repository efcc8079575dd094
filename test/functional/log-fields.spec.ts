import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { IsBoolean } from 'class-validator';
import request from 'supertest';
import { inject, injectable } from 'tsyringe';
import { EmptyInput, type LogFields, MCP_LOGGER, McpApplication, McpModule, type ServerLogger, Tool } from '../../src';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { deferred, waitFor } from '../helpers/wait-for';
import { McpTestClient } from '../../src/testing';
import { httpTransport } from '../../src/http';
import { stdio } from '../../src/stdio';
import type { RequestListener } from '../../src/http';

class SometimesInput {
  @IsBoolean() wait!: boolean;
}

const later = () => new Promise<void>((resolve) => setImmediate(resolve));

@injectable()
class LoggingTools {
  constructor(@inject(MCP_LOGGER) private readonly log: ServerLogger) {}

  @Tool({ description: 'Logs and answers at once' })
  quick(_: EmptyInput) {
    this.log.info('quick ran');
    return 'quick';
  }

  @Tool({ description: 'Logs after an await' })
  async slow(_: EmptyInput) {
    await later();
    this.log.info('slow ran');
    return 'slow';
  }

  @Tool({ description: 'A plain method that answers at once, or returns a promise that logs after an await' })
  sometimes({ wait }: SometimesInput) {
    if (!wait) {
      this.log.info('sometimes ran');
      return 'now';
    }
    return later().then(() => {
      this.log.info('sometimes ran');
      return 'later';
    });
  }
}

@injectable()
class TaskTools {
  readonly release = deferred();
  constructor(@inject(MCP_LOGGER) private readonly log: ServerLogger) {}

  @Tool({ description: 'Runs as a task, logs after its request was answered', taskSupport: 'optional' })
  async background(_: EmptyInput) {
    await this.release.promise;
    this.log.info('background ran');
    return 'done';
  }
}

@McpModule({ providers: [LoggingTools, TaskTools], server: { name: 'log-fields', version: '1.0.0' } })
class LogFieldsModule {}

interface Entry {
  message: string;
  fields?: LogFields;
}

/* Every entry logged while a request is served carries its fields, after the handler's awaits too. */
describe('the log fields of requests', () => {
  let app: McpApplication;
  let entries: Entry[];

  beforeEach(async () => {
    entries = [];
    const keep = (message: string, fields?: LogFields) => void entries.push({ message, fields });
    app = await McpApplication.create(LogFieldsModule, {
      logger: { error: (message, _error, fields) => keep(message, fields), warn: keep, info: keep },
    });
  });
  afterEach(async () => {
    await app.close();
  });

  const ran = (message: string) => entries.filter((e) => e.message === message).map((e) => e.fields);

  describe('over HTTP', () => {
    let callback: RequestListener;
    beforeEach(() => {
      callback = httpTransport(app, { sessions: false }).callback();
    });
    const call = async (id: number, name: string, args: Record<string, unknown> = {}) => {
      const res = await request(callback)
        .post('/mcp')
        .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' })
        .send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
      return (res.body as { result: { content: { text: string }[] } }).result.content[0].text;
    };

    it('gives the entries of a tool that answers at once their fields, request by request', async () => {
      for (let id = 1; id <= 12; id++) expect(await call(id, 'quick')).toBe('quick');
      expect(ran('quick ran')).toEqual(
        Array.from({ length: 12 }, (_, i) => ({ requestId: i + 1, method: 'tools/call', sessionId: undefined })),
      );
    });

    it('keeps the fields across awaits, also while requests that answer at once run beside', async () => {
      for (let id = 1; id <= 9; id++) await call(id, 'quick');
      const answers = await Promise.all([call(20, 'slow'), call(21, 'quick'), call(22, 'slow')]);
      expect(answers).toEqual(['slow', 'quick', 'slow']);
      expect(
        ran('slow ran')
          .map((f) => f?.requestId)
          .sort(),
      ).toEqual([20, 22]);
      expect(ran('slow ran').every((f) => f?.method === 'tools/call')).toBe(true);
    });

    it('a tool that answers at once one day and after an await the next logs with its fields both times', async () => {
      for (let id = 1; id <= 9; id++) expect(await call(id, 'sometimes', { wait: false })).toBe('now');
      expect(await call(10, 'sometimes', { wait: true })).toBe('later');
      expect(await call(11, 'sometimes', { wait: true })).toBe('later');
      expect(ran('sometimes ran')).toEqual(
        Array.from({ length: 11 }, (_, i) => ({ requestId: i + 1, method: 'tools/call', sessionId: undefined })),
      );
    });
  });

  it('over stdio: the same, per message, after an await too', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    await app.listen(stdio({ input, output, redirectConsole: false }));
    const lines = createInterface({ input: output });
    const answers = new Map<number, () => void>();
    lines.on('line', (line) => answers.get((JSON.parse(line) as { id: number }).id)?.());
    const send = (id: number, method: string, params: Record<string, unknown>) =>
      new Promise<void>((resolve) => {
        answers.set(id, resolve);
        input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    await send(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    for (let id = 1; id <= 12; id++) await send(id, 'tools/call', { name: 'quick', arguments: {} });
    await send(13, 'tools/call', { name: 'slow', arguments: {} });
    await Promise.all([
      send(14, 'tools/call', { name: 'sometimes', arguments: { wait: true } }),
      send(15, 'tools/call', { name: 'sometimes', arguments: { wait: false } }),
    ]);
    expect(ran('quick ran')).toEqual(Array.from({ length: 12 }, (_, i) => ({ method: 'tools/call', requestId: i + 1 })));
    expect(ran('slow ran')).toEqual([{ method: 'tools/call', requestId: 13 }]);
    const sometimes = ran('sometimes ran').sort((a, b) => Number(a?.requestId) - Number(b?.requestId));
    expect(sometimes).toEqual([
      { method: 'tools/call', requestId: 14 },
      { method: 'tools/call', requestId: 15 },
    ]);
    input.end();
  });

  it("a task's handler, running after its request was answered, logs with that request's fields", async () => {
    const client = await McpTestClient.connect(app.connectInMemory());
    const created = (await client.request('tools/call', { name: 'background', arguments: {}, task: {} })) as { task: { taskId: string } };
    expect(created.task.taskId).toEqual(expect.any(String));
    // The request is over; nothing else runs in the storage but the task.
    app.get(TaskTools).release.resolve();
    await waitFor(() => ran('background ran').length === 1);
    expect(ran('background ran')).toEqual([{ method: 'tools/call', requestId: expect.any(Number) }]);
  });
});
