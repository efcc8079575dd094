import { IsIn, IsNumberString, IsOptional, IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { Complete, CompletionContext, Field, McpError, McpModule, Prompt, Resource, assistantMessage, userMessage } from '../../src';
import { connect } from '../helpers/in-memory';

class UserVars {
  @IsNumberString() id!: string;
}
class Args {
  @Field({ title: 'Topic', description: 'What to write about' }) @IsString() topic!: string;
  @IsOptional() @IsIn(['dry', 'warm']) tone?: string;
}

@injectable()
class Content {
  @Resource({ uri: 'app://text', mimeType: 'text/plain' }) textRes() {
    return 'plain text';
  }
  @Resource({ uri: 'app://bytes', mimeType: 'image/png' }) bytes() {
    return new Uint8Array([255, 0]);
  }
  @Resource({ uri: 'app://json' }) json() {
    return { a: 1 };
  }
  @Resource({ uri: 'app://many' }) many() {
    return {
      contents: [
        { uri: 'app://many#1', text: 'one' },
        { uri: 'app://many#2', blob: 'AA==' },
      ],
    };
  }
  @Resource({ uri: 'app://broken' }) broken() {
    throw new Error('disk on fire');
  }
  @Resource({ uriTemplate: 'app://users/{id}', mimeType: 'application/json' }) user(vars: UserVars) {
    return { id: vars.id, isInstance: vars instanceof UserVars };
  }
  @Resource({ uriTemplate: 'app://files/{+path}' }) file({ path }: { path: string }) {
    if (path === 'missing') throw McpError.resourceNotFound(`app://files/${path}`);
    return `file ${path}`;
  }

  @Prompt({ title: 'Write', description: 'Writes' }) write(args: Args) {
    return `Write about ${args.topic}${args.tone ? ` in a ${args.tone} tone` : ''}`;
  }
  @Prompt() dialog(args: Args) {
    return [userMessage(args.topic), assistantMessage('ok')];
  }
  @Prompt({ name: 'broken' }) brokenPrompt(_: Args) {
    return 42;
  }

  @Complete({ prompt: 'write', argument: 'topic' }) topics(value: string) {
    return Array.from({ length: 250 }, (_, i) => `topic-${i}`).filter((t) => t.startsWith(value));
  }
  @Complete({ prompt: 'write', argument: 'tone' }) tones(value: string, ctx: CompletionContext) {
    return { values: [`${ctx.arguments.topic ?? 'none'}:${value}`], total: 10, hasMore: true };
  }
  @Complete({ resource: 'app://users/{id}', argument: 'id' }) ids(value: string) {
    return ['1', '12', '2'].filter((i) => i.startsWith(value));
  }
}

@McpModule({ providers: [Content], pageSize: 2 })
class ContentModule {}

describe('resources, prompts and completion (in-memory client)', () => {
  let env: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => (env = await connect(ContentModule)));
  afterAll(() => env.app.close());
  const read = (uri: string) => env.client.request('resources/read', { uri });

  it('maps strings, bytes, objects and full results', async () => {
    expect(await read('app://text')).toEqual({ contents: [{ uri: 'app://text', mimeType: 'text/plain', text: 'plain text' }] });
    expect(await read('app://bytes')).toEqual({ contents: [{ uri: 'app://bytes', mimeType: 'image/png', blob: '/wA=' }] });
    expect(await read('app://json')).toEqual({ contents: [{ uri: 'app://json', mimeType: 'application/json', text: '{"a":1}' }] });
    expect(await read('app://many')).toEqual({
      contents: [
        { uri: 'app://many#1', text: 'one' },
        { uri: 'app://many#2', blob: 'AA==' },
      ],
    });
  });

  it('validates template variables against the handler parameter class', async () => {
    expect(await read('app://users/42')).toEqual({
      contents: [{ uri: 'app://users/42', mimeType: 'application/json', text: '{"id":"42","isInstance":true}' }],
    });
    await expect(read('app://users/abc')).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('id') });
  });

  it('answers unknown resources with -32002, and hides handler failures', async () => {
    expect(await read('app://files/a/b.txt')).toEqual({ contents: [{ uri: 'app://files/a/b.txt', text: 'file a/b.txt' }] });
    await expect(read('app://files/missing')).rejects.toMatchObject({ code: -32002, data: { uri: 'app://files/missing' } });
    await expect(read('app://nothing')).rejects.toMatchObject({ code: -32002 });
    await expect(read('app://broken')).rejects.toEqual(expect.objectContaining({ code: -32603, message: 'Internal error' }));
  });

  it('pages resources and templates with the configured page size', async () => {
    const first = (await env.client.request('resources/list')) as { resources: { uri: string }[]; nextCursor?: string };
    expect(first.resources.map((r) => r.uri)).toEqual(['app://text', 'app://bytes']);
    const second = (await env.client.request('resources/list', { cursor: first.nextCursor })) as {
      resources: { uri: string }[];
      nextCursor?: string;
    };
    expect(second.resources.map((r) => r.uri)).toEqual(['app://json', 'app://many']);
    const third = (await env.client.request('resources/list', { cursor: second.nextCursor })) as {
      resources: unknown[];
      nextCursor?: string;
    };
    expect(third.resources).toHaveLength(1);
    expect(third.nextCursor).toBeUndefined();
    const templates = (await env.client.request('resources/templates/list')) as {
      resourceTemplates: { uriTemplate: string }[];
      nextCursor?: string;
    };
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['app://users/{id}', 'app://files/{+path}']);
    expect(templates.nextCursor).toBeUndefined();
    await expect(env.client.request('resources/templates/list', { cursor: first.nextCursor })).rejects.toMatchObject({ code: -32602 });
  });

  it('lists prompt arguments with titles and descriptions, and gets prompts', async () => {
    const list = (await env.client.request('prompts/list')) as { prompts: { name: string; arguments: unknown[] }[] };
    expect(list.prompts[0]).toEqual({
      name: 'write',
      title: 'Write',
      description: 'Writes',
      arguments: [
        { name: 'topic', title: 'Topic', description: 'What to write about', required: true },
        { name: 'tone', required: false },
      ],
    });
    expect(await env.client.request('prompts/get', { name: 'write', arguments: { topic: 'cats', tone: 'dry' } })).toEqual({
      description: 'Writes',
      messages: [{ role: 'user', content: { type: 'text', text: 'Write about cats in a dry tone' } }],
    });
    expect(await env.client.request('prompts/get', { name: 'dialog', arguments: { topic: 't' } })).toEqual({
      messages: [
        { role: 'user', content: { type: 'text', text: 't' } },
        { role: 'assistant', content: { type: 'text', text: 'ok' } },
      ],
    });
  });

  it('answers invalid prompt arguments with -32602 naming the field', async () => {
    await expect(env.client.request('prompts/get', { name: 'write', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('topic'),
    });
    await expect(env.client.request('prompts/get', { name: 'write', arguments: { topic: 'x', tone: 'loud' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('tone'),
    });
    await expect(env.client.request('prompts/get', { name: 'broken', arguments: { topic: 'x' } })).rejects.toMatchObject({ code: -32603 });
  });

  it('caps completions at 100 values with total and hasMore', async () => {
    const r = (await env.client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'write' },
      argument: { name: 'topic', value: 'topic-' },
    })) as {
      completion: { values: string[]; total: number; hasMore: boolean };
    };
    expect(r.completion.values).toHaveLength(100);
    expect(r.completion.values[0]).toBe('topic-0');
    expect(r.completion.total).toBe(250);
    expect(r.completion.hasMore).toBe(true);
  });

  it('passes the already-resolved arguments to the completer and keeps a full completion object', async () => {
    const r = await env.client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'write' },
      argument: { name: 'tone', value: 'd' },
      context: { arguments: { topic: 'cats' } },
    });
    expect(r).toEqual({ completion: { values: ['cats:d'], total: 10, hasMore: true } });
  });

  it('completes template variables, returns nothing for arguments without a completer, and rejects unknown refs', async () => {
    expect(
      await env.client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'app://users/{id}' },
        argument: { name: 'id', value: '1' },
      }),
    ).toEqual({
      completion: { values: ['1', '12'], total: 2, hasMore: false },
    });
    expect(
      await env.client.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'app://files/{+path}' },
        argument: { name: 'path', value: '' },
      }),
    ).toEqual({
      completion: { values: [], hasMore: false },
    });
    await expect(
      env.client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      env.client.request('completion/complete', { ref: { type: 'ref/resource', uri: 'x://{y}' }, argument: { name: 'y', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      env.client.request('completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'y', value: '' } }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
