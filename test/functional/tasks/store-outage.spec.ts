import { McpApplication } from '../../../src';
import { gate, PerRequestTasksModule } from '../../fixtures/per-request-task-tools';
import { connect } from '../../helpers/in-memory';
import { envelope, postPerRequest } from '../../helpers/per-request-http';
import { LeasedTaskStore, OutageTaskStore } from '../../helpers/outage-task-store';
import { TaskModule } from '../../helpers/task-tools';
import { waitFor } from '../../helpers/wait-for';
import { httpServer } from '../../../src/http';

const TASKS = 'io.modelcontextprotocol/tasks';
const withTasks = () => envelope({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } });

/**
 * A task whose handler ends while the task store is down: its end is kept and recorded once the store is
 * back, in both eras (one engine). Before, the 2026-07-28 tasks logged "Could not record the end" and lost it.
 */
describe('a task result saved through a task store outage', () => {
  it('2025-11-25: the task stays working while the store is down, then completes with its result', async () => {
    const store = new OutageTaskStore();
    const errors: string[] = [];
    const { app, client } = await connect(TaskModule, {
      taskStore: { useValue: store },
      logger: { error: (m: string) => errors.push(m), warn: () => undefined, info: () => undefined },
    });
    try {
      store.down = true;
      const { task } = (await client.request('tools/call', { name: 'wait', arguments: { ms: 20 }, task: {} })) as {
        task: { taskId: string };
      };
      await waitFor(() => store.failedFinishes >= 2, { what: 'two failed attempts to record the end' });
      expect(((await client.request('tasks/get', { taskId: task.taskId })) as { status: string }).status).toBe('working');
      store.down = false;
      const result = await client.request('tasks/result', { taskId: task.taskId });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'waited 20' }] });
      expect(((await client.request('tasks/get', { taskId: task.taskId })) as { status: string }).status).toBe('completed');
      expect(errors.filter((e) => e.startsWith('Could not record the end'))).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('2026-07-28 (tasks extension): the task stays working while the store is down, then shows its result', async () => {
    const store = new OutageTaskStore();
    const errors: string[] = [];
    const app = await McpApplication.create(PerRequestTasksModule, {
      taskStore: { useValue: store },
      logger: { error: (m: string) => errors.push(m), warn: () => undefined, info: () => undefined },
    });
    try {
      const url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
      const get = async (taskId: string) => (await postPerRequest(url, 'tasks/get', { taskId, _meta: withTasks() })).body.result!;
      const reply = await postPerRequest(url, 'tools/call', { name: 'waits', arguments: { key: 'outage' }, _meta: withTasks() });
      const taskId = reply.body.result!.taskId as string;
      expect(reply.body.result).toMatchObject({ resultType: 'task', status: 'working' });
      store.down = true;
      gate('outage').resolve();
      await waitFor(() => store.failedFinishes >= 2, { what: 'two failed attempts to record the end' });
      expect((await get(taskId)).status).toBe('working');
      store.down = false;
      const done = await waitFor(
        async () => {
          const task = await get(taskId);
          return task.status === 'completed' ? task : undefined;
        },
        { what: 'the task completed' },
      );
      expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'opened outage' }] });
      expect(errors.filter((e) => e.startsWith('Could not record the end'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('shutting down while tasks run', () => {
  const logger = (errors: string[]) => ({ error: (m: string) => errors.push(m), warn: () => undefined, info: () => undefined });

  it('2025-11-25: records their end and releases their leases before the store closes, logging nothing', async () => {
    const store = new LeasedTaskStore();
    const errors: string[] = [];
    const { app, client } = await connect(TaskModule, { taskStore: { useValue: store }, logger: logger(errors) });
    const { task } = (await client.request('tools/call', { name: 'wait', arguments: { ms: 60_000 }, task: {} })) as {
      task: { taskId: string };
    };
    await app.close();
    expect(errors).toEqual([]);
    expect(store.released).toEqual([task.taskId]);
  });

  it('2026-07-28: records their end and releases their leases before the store closes, logging nothing', async () => {
    const store = new LeasedTaskStore();
    const errors: string[] = [];
    const app = await McpApplication.create(PerRequestTasksModule, { taskStore: { useValue: store }, logger: logger(errors) });
    const url = (await app.listen(httpServer({ host: '127.0.0.1', port: 0 }))).url;
    const modern = await postPerRequest(url, 'tools/call', { name: 'waits', arguments: { key: 'never-opened' }, _meta: withTasks() });
    const taskId = modern.body.result!.taskId as string;
    await app.close();
    expect(errors).toEqual([]);
    expect(store.released).toEqual([taskId]);
  });
});
