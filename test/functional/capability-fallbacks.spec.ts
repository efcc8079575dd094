import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { EmptyInput, McpContext, McpModule, Tool, ToolError } from '../../src';
import { connect } from '../helpers/in-memory';

// The tools of docs/guide/context.md, "When the client cannot ask the user".

class DeleteInput {
  @IsString() path!: string;
  @IsOptional() @IsBoolean() confirmed?: boolean;
}

class Confirm {
  @IsBoolean() confirm!: boolean;
}

class TextInput {
  @IsString() text!: string;
}

@injectable()
class Files {
  @Tool({ description: 'Deletes a file once the user confirms', input: DeleteInput })
  async deleteFile(input: DeleteInput, ctx: McpContext) {
    if (!ctx.session.clientCapabilities.elicitation) {
      if (!input.confirmed) throw new ToolError(`Ask the user to confirm deleting ${input.path}, then call again with confirmed: true`);
      return `Deleted ${input.path}`;
    }
    const answer = await ctx.elicitForm(`Delete ${input.path}?`, Confirm);
    return answer.action === 'accept' && answer.content?.confirm ? `Deleted ${input.path}` : 'Kept it';
  }

  @Tool({ description: 'Summarizes a text', input: TextInput })
  async summarize(input: TextInput, ctx: McpContext) {
    if (!ctx.session.clientCapabilities.sampling) return `Summarize this yourself:\n\n${input.text}`;
    const reply = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize:\n\n${input.text}` } }],
      maxTokens: 200,
    });
    return (reply.content as { text?: string }).text ?? 'No summary'; // content is one block, usually text
  }

  @Tool({ description: 'Lists the folders it may touch' })
  async folders(_: EmptyInput, ctx: McpContext) {
    const roots = ctx.session.clientCapabilities.roots ? await ctx.roots() : [{ uri: `file://${process.cwd()}` }];
    return roots.map((root) => root.uri).join('\n');
  }

  @Tool({ description: 'Asks without checking', input: DeleteInput })
  async unchecked(input: DeleteInput, ctx: McpContext) {
    const answer = await ctx.elicitForm(`Delete ${input.path}?`, Confirm);
    return answer.action;
  }
}

@McpModule({ providers: [Files] })
class FilesModule {}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;

describe('a handler whose client lacks elicitation, sampling or roots', () => {
  it('gets -32600 "The client does not support elicitation (form mode)" from ctx.elicitForm, which fails the call', async () => {
    const { app, client } = await connect(FilesModule);
    await expect(client.request('tools/call', { name: 'unchecked', arguments: { path: 'a.txt' } })).rejects.toMatchObject({
      code: -32600,
      message: 'The client does not support elicitation (form mode)',
    });
    expect(client.serverRequests).toEqual([]);
    await app.close();
  });

  it('degrades when it checks ctx.session.clientCapabilities first: a tool error the model reads, its own text, a default root', async () => {
    const { app, client } = await connect(FilesModule);
    const deleted = await client.request('tools/call', { name: 'deleteFile', arguments: { path: 'a.txt' } });
    expect(deleted).toMatchObject({
      isError: true,
      content: [{ text: 'Ask the user to confirm deleting a.txt, then call again with confirmed: true' }],
    });
    expect(textOf(await client.request('tools/call', { name: 'deleteFile', arguments: { path: 'a.txt', confirmed: true } }))).toBe(
      'Deleted a.txt',
    );
    expect(textOf(await client.request('tools/call', { name: 'summarize', arguments: { text: 'Long.' } }))).toBe(
      'Summarize this yourself:\n\nLong.',
    );
    expect(textOf(await client.request('tools/call', { name: 'folders', arguments: {} }))).toBe(`file://${process.cwd()}`);
    expect(client.serverRequests).toEqual([]);
    await app.close();
  });

  it('asks the client when it has the capability', async () => {
    const { app, client } = await connect(
      FilesModule,
      {},
      {
        capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
        handlers: {
          'elicitation/create': () => ({ action: 'accept', content: { confirm: true } }),
          'sampling/createMessage': () => ({ role: 'assistant', content: { type: 'text', text: 'Short.' }, model: 'm' }),
          'roots/list': () => ({ roots: [{ uri: 'file:///work' }] }),
        },
      },
    );
    expect(textOf(await client.request('tools/call', { name: 'deleteFile', arguments: { path: 'a.txt' } }))).toBe('Deleted a.txt');
    expect(textOf(await client.request('tools/call', { name: 'summarize', arguments: { text: 'Long.' } }))).toBe('Short.');
    expect(textOf(await client.request('tools/call', { name: 'folders', arguments: {} }))).toBe('file:///work');
    await app.close();
  });
});
