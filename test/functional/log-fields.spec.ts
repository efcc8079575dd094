import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { IsBoolean } from 'class-validator';
import request from 'supertest';
import { inject, injectable } from 'tsyringe';
import { EmptyInput, type LogFields, MCP_LOGGER, McpApplication, McpModule, type ServerLogger, Tool } from '../../src';
import { ACCEPT_BOTH } from '../helpers/http-app';
import { deferred, waitFor } from '../helpers/wait-for';
import { McpTestClient } from '../../src/testing';

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

/*
 * The server log's request fields ride on AsyncLocalStorage only where a request may wait: on Node 20 a
 * storage in use makes every promise of the process pay async hooks. A kind of request (method and tool)
 * that answered synchronously 8 times in a row runs without it, its entries still carrying their fields;
 * the storage is disabled whenever no request that may wait is running.
 */
describe('the log fields of requests, without AsyncLocalStorage where no request waits', () => {
  let app: McpApplication;
  let entries: Entry[];
  let run: jest.SpyInstance;
  let disable: jest.SpyInstance;

  beforeEach(async () => {
    entries = [];
    const keep = (message: string, fields?: LogFields) => void entries.push({ message, fields });
    app = await McpApplication.create(LogFieldsModule, {
      logger: { error: (message, _error, fields) => keep(message, fields), warn: keep, info: keep },
    });
    run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    disable = jest.spyOn(AsyncLocalStorage.prototype, 'disable');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await app.close();
  });

  const ran = (message: string) => entries.filter((e) => e.message === message).map((e) => e.fields);

  describe('over HTTP', () => {
    let callback: ReturnType<ReturnType<McpApplication['httpTransport']>['callback']>;
    beforeEach(() => {
      callback = app.httpTransport({ sessions: false }).callback();
    });
    const call = async (id: number, name: string, args: Record<string, unknown> = {}) => {
      const res = await request(callback)
        .post('/mcp')
        .set({ Accept: ACCEPT_BOTH, 'Content-Type': 'application/json', 'MCP-Protocol-Version': '2025-11-25' })
        .send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
      return (res.body as { result: { content: { text: string }[] } }).result.content[0].text;
    };

    it('serves a tool that keeps answering synchronously without the storage, its entries still with their fields', async () => {
      for (let id = 1; id <= 8; id++) expect(await call(id, 'quick')).toBe('quick');
      const learning = run.mock.calls.length;
      expect(learning).toBeGreaterThanOrEqual(8);
      for (let id = 9; id <= 12; id++) expect(await call(id, 'quick')).toBe('quick');
      expect(ran('quick ran')).toEqual(
        Array.from({ length: 12 }, (_, i) => ({ requestId: i + 1, method: 'tools/call', sessionId: undefined })),
      );
      // Used, then given up each time no request was left in it: its hooks are off.
      expect(disable.mock.instances).toContain(run.mock.instances[0]);
    });

    it('keeps the fields across awaits, also while learned synchronous requests run beside', async () => {
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

    it('a learned tool that returns a promise one day is served in the storage from then on', async () => {
      for (let id = 1; id <= 9; id++) expect(await call(id, 'sometimes', { wait: false })).toBe('now');
      expect(await call(10, 'sometimes', { wait: true })).toBe('later');
      expect(await call(11, 'sometimes', { wait: true })).toBe('later');
      const fields = ran('sometimes ran');
      expect(fields[9]).toEqual({ requestId: 10, method: 'tools/call', sessionId: undefined });
      expect(fields[10]).toEqual({ requestId: 11, method: 'tools/call', sessionId: undefined });
    });
  });

  it('over stdio: the same, per message', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    await app.listen({ stdio: { input, output, redirectConsole: false } });
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
    for (let id = 1; id <= 8; id++) await send(id, 'tools/call', { name: 'quick', arguments: {} });
    for (let id = 9; id <= 12; id++) await send(id, 'tools/call', { name: 'quick', arguments: {} });
    await send(13, 'tools/call', { name: 'slow', arguments: {} });
    expect(ran('quick ran')).toEqual(Array.from({ length: 12 }, (_, i) => ({ method: 'tools/call', requestId: i + 1 })));
    expect(ran('slow ran')).toEqual([{ method: 'tools/call', requestId: 13 }]);
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
