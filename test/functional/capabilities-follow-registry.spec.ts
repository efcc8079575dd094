import { injectable } from 'tsyringe';
import { McpTestClient } from '../../src/testing';
import { EmptyInput, McpApplication, McpModule, Resource, Tool } from '../../src';
import { waitFor } from '../helpers/wait-for';

@injectable()
class OnlyResource {
  @Resource({ uri: 'x://only', mimeType: 'text/plain' })
  only() {
    return 'only';
  }
}

@injectable()
class LateTools {
  @Tool({ description: 'Added at runtime' })
  late(_: EmptyInput) {
    return 'late';
  }
}

@injectable()
class LateTaskTools {
  @Tool({ description: 'Added at runtime, may run as a task', taskSupport: 'optional' })
  background(_: EmptyInput) {
    return 'done in the background';
  }
}

@McpModule({ providers: [OnlyResource] })
class ResourceModule {}

@McpModule({ providers: [] })
class EmptyModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };

/** Capabilities and methods follow the registry: a kind added at runtime is offered to clients that initialize after it. */
describe('capabilities follow the registry', () => {
  it('offers tools once a tool class is added to an application that had only a resource', async () => {
    const app = await McpApplication.create(ResourceModule, quiet);
    const before = await McpTestClient.connect(app.connectInMemory());
    expect(before.initializeResult?.capabilities).not.toHaveProperty('tools');
    await expect(before.request('tools/list')).rejects.toMatchObject({ code: -32601 });

    app.addProviders(LateTools);
    const after = await McpTestClient.connect(app.connectInMemory());
    expect(after.initializeResult?.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } });
    expect(((await after.request('tools/list')) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['late']);
    expect(await after.request('tools/call', { name: 'late', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'late' }] });
    await app.close();
  });

  it('tells an already initialized client about list changes only for lists it was told about', async () => {
    const app = await McpApplication.create(ResourceModule, quiet);
    const early = await McpTestClient.connect(app.connectInMemory());
    app.addProviders(LateTools);
    app.disable('resource', 'x://only');
    await waitFor(() => early.notifications.some((n) => n.method === 'notifications/resources/list_changed'));
    // Every list's notification goes out in the same batch; a ping answered after it shows nothing else was sent.
    await early.request('ping');
    expect(early.notifications.map((n) => n.method)).toEqual(['notifications/resources/list_changed']);
    await app.close();
  });

  it('starts offering tasks when the first task-capable tool is added, and runs a call with `task` as a task', async () => {
    const app = await McpApplication.create(EmptyModule, quiet);
    const before = await McpTestClient.connect(app.connectInMemory());
    expect(before.initializeResult?.capabilities).toEqual({ logging: {} });
    app.addProviders(LateTaskTools);
    const client = await McpTestClient.connect(app.connectInMemory());
    expect(client.initializeResult?.capabilities).toHaveProperty('tasks.requests.tools.call');
    const created = (await client.request('tools/call', { name: 'background', arguments: {}, task: {} })) as { task: { taskId: string } };
    expect(created.task.taskId).toEqual(expect.any(String));
    const result = await client.request('tasks/result', { taskId: created.task.taskId });
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'done in the background' }] });
    await app.close();
  });
});
