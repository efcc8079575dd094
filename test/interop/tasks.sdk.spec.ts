import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { HTTP_FIXTURE, SAMPLE_MAIN } from '../helpers/paths';
import { connectSdkOverStdio } from '../helpers/sdk-stdio';
import { spawnHttpServer } from '../helpers/spawn-server';

type Message = {
  type: string;
  task?: { taskId: string; status: string };
  result?: { content: { type: string; text: string }[] };
  error?: Error;
};

/** The official SDK client's experimental tasks API against mcpkit, over stdio and over HTTP. */
function tasksOver(label: string, open: () => Promise<{ client: Client; done: () => Promise<void> }>) {
  describe(`tasks over ${label}, official SDK client`, () => {
    let client: Client;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ client, done } = await open());
      await client.listTools();
    });
    afterAll(() => done());

    it('declares tasks, and callToolStream runs a tool as a task to its result', async () => {
      expect(client.getServerCapabilities()?.tasks).toMatchObject({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      const messages: Message[] = [];
      for await (const m of client.experimental.tasks.callToolStream(
        { name: 'reindex', arguments: { batches: 3, delayMs: 20 } },
        undefined,
        { task: { ttl: 60_000 } },
      )) {
        messages.push(m as Message);
      }
      expect(messages[0]).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
      const last = messages.at(-1)!;
      expect(last.type).toBe('result');
      expect(last.result!.content[0].text).toMatch(/^Re-indexed \d+ notes in 3 batches$/);
      const taskId = messages[0].task!.taskId;
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
      const again = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect((again as { content: { text: string }[] }).content[0].text).toBe(last.result!.content[0].text);
      const listed = await client.experimental.tasks.listTasks();
      expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    });

    it('cancels a running task; cancelling it again is an invalid-params error', async () => {
      const stream = client.experimental.tasks.callToolStream({ name: 'reindex', arguments: { batches: 50, delayMs: 50 } }, undefined, {
        task: { ttl: 60_000 },
      });
      const first = (await stream.next()).value as Message;
      const taskId = first.task!.taskId;
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
      await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
      await stream.return(undefined);
    });

    it('answers an unknown task id with -32602', async () => {
      await expect(client.experimental.tasks.getTask('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: -32602 });
    });

    it('runs a task that asks the user mid-way (input_required), answered by the SDK client', async () => {
      const asked: unknown[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params);
        return { action: 'accept', content: { confirm: false } };
      });
      const messages: Message[] = [];
      for await (const m of client.experimental.tasks.callToolStream({ name: 'archive', arguments: { id: 'note-3' } }, undefined, {
        task: { ttl: 60_000 },
      })) {
        messages.push(m as Message);
      }
      expect(messages.at(-1)).toMatchObject({ type: 'result', result: { content: [{ type: 'text', text: 'Kept note-3 (accept)' }] } });
      const taskId = messages[0].task!.taskId;
      expect(asked).toEqual([
        expect.objectContaining({ message: 'Archive "Release plan"?', _meta: { 'io.modelcontextprotocol/related-task': { taskId } } }),
      ]);
    });
  });
}

tasksOver('stdio', async () => {
  const { client } = await connectSdkOverStdio(SAMPLE_MAIN, ['--stdio'], { elicitation: { form: {} } });
  return { client, done: () => client.close() };
});

tasksOver('Streamable HTTP', async () => {
  const server = await spawnHttpServer(HTTP_FIXTURE);
  const client = new Client({ name: 'tasks-http', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return {
    client,
    done: async () => {
      await client.close();
      await server.stop();
    },
  };
});
