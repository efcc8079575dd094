import { McpApplication, McpModule } from '../../src';
import { McpTestClient } from '../../src/testing';
import { TaskModule } from '../helpers/task-tools';
import { proxy } from '../../src/compose';

@McpModule({ server: { name: 'gateway', version: '1.0.0' }, providers: [] })
class GatewayModule {}

type Task = { taskId: string; status: string };

/** A proxied tool that its server may run as a task may run as a task here: this server's task runs the remote call. */
describe('proxied tools and tasks', () => {
  it("offers a remote 'optional' tool as a task (the task runs the remote call), and a 'required' one as a plain tool it cannot be", async () => {
    const far = await McpApplication.create(TaskModule);
    const app = await McpApplication.create(GatewayModule);
    await proxy(app, 'far', far.connectInMemory());
    const client = await McpTestClient.connect(app.connectInMemory());
    const { tools } = (await client.request('tools/list')) as { tools: { name: string; execution?: unknown }[] };
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.execution]));
    expect(byName).toMatchObject({ far_quick: { taskSupport: 'optional' } });
    expect(byName.far_mustTask).toBeUndefined();
    expect(byName.far_never).toBeUndefined();
    expect((client.initializeResult as { capabilities: { tasks?: unknown } }).capabilities.tasks).toBeDefined();

    const created = (await client.request('tools/call', { name: 'far_quick', arguments: {}, task: {} })) as { task: Task };
    expect(created.task.status).toBe('working');
    const result = await client.request('tasks/result', { taskId: created.task.taskId });
    const plain = await client.request('tools/call', { name: 'far_quick', arguments: {} });
    expect(result).toMatchObject({ content: (plain as { content: unknown }).content });
    await app.close();
    await far.close();
  });
});
