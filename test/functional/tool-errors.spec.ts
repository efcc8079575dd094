import { injectable } from 'tsyringe';
import { EmptyInput, McpModule, Tool, ToolError } from '../../src';
import { connect } from '../helpers/in-memory';

@injectable()
class FailingTools {
  @Tool({ description: 'Fails the way library code does' })
  lookup(_: EmptyInput): string {
    throw new Error('no row with id 7');
  }

  @Tool({ description: 'Also fails plainly' })
  other(_: EmptyInput): string {
    throw new TypeError('cannot read "x" of undefined');
  }

  @Tool({ description: 'Fails for the model to read' })
  told(_: EmptyInput): string {
    throw new ToolError('try an id below 7');
  }
}

@McpModule({ providers: [FailingTools], server: { name: 'tool-errors', version: '1.0.0' } })
class FailingModule {}

type Result = { isError?: boolean; content: { text: string }[] };

describe('a plain Error thrown by a tool', () => {
  it('reaches the model as a generic message, and the first one logs a warning that names ToolError and exposeToolErrors, once per application', async () => {
    const { app, client, logged } = await connect(FailingModule);
    const call = async (name: string) => (await client.request('tools/call', { name, arguments: {} })) as Result;
    expect(await call('lookup')).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Tool "lookup" failed with an internal error' }],
    });
    await call('lookup');
    await call('other');
    expect(await call('told')).toEqual({ isError: true, content: [{ type: 'text', text: 'try an id below 7' }] });
    const warnings = logged.filter((line) => line.includes('ToolError'));
    expect(warnings).toEqual([
      'Tool FailingTools.lookup threw Error, not ToolError, so the model read only: Tool "lookup" failed with an internal error. ' +
        'Throw ToolError (from mcpkit) for a message the model should read, or set the application option exposeToolErrors: true ' +
        "to pass every error's message through (this warning is logged once)",
    ]);
    // Every plain error is still logged with its own message, for the server's author.
    expect(logged.filter((line) => line.startsWith('Tool FailingTools.') && !line.includes('ToolError'))).toEqual([
      'Tool FailingTools.lookup threw no row with id 7',
      'Tool FailingTools.lookup threw no row with id 7',
      'Tool FailingTools.other threw cannot read "x" of undefined',
    ]);
    await app.close();
  });

  it('shows its message to the model with exposeToolErrors: true, without the warning', async () => {
    const { app, client, logged } = await connect(FailingModule, { exposeToolErrors: true });
    const result = (await client.request('tools/call', { name: 'lookup', arguments: {} })) as Result;
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'no row with id 7' }] });
    expect(logged).toEqual(['Tool FailingTools.lookup threw no row with id 7']);
    await app.close();
  });

  it('also for a tool added at runtime with app.addTool', async () => {
    const { app, client } = await connect(FailingModule, { exposeToolErrors: true });
    app.addTool({
      name: 'dynamic',
      description: 'Added later',
      inputSchema: { type: 'object' },
      handler: () => {
        throw new Error('dynamic failure');
      },
    });
    const result = (await client.request('tools/call', { name: 'dynamic', arguments: {} })) as Result;
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'dynamic failure' }] });
    await app.close();
  });
});
