import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { McpContext, McpModule, Tool } from '../../../src';
import { hostileShape } from '../../../src/validation/validate-input';
import { internalsOf } from '../../../src/kernel/mcp-application';
import { connect } from '../../helpers/in-memory';
import { deferred, waitFor } from '../../helpers/wait-for';

class Text {
  @IsString() text!: string;
}

@injectable()
class Tools {
  readonly release = deferred<string>();
  readonly started = deferred();

  @Tool({ description: 'Answers at once' })
  now(input: Text) {
    return input.text;
  }

  @Tool({ description: 'Waits to be released or cancelled' })
  later(_: Text, ctx: McpContext) {
    this.started.resolve();
    ctx.signal.addEventListener('abort', () => this.release.resolve('cancelled'));
    return this.release.promise;
  }
}

@McpModule({ providers: [Tools], server: { name: 'in-flight', version: '1' } })
class InFlightModule {}

describe('requests in flight', () => {
  it('counts a request in flight until it is answered, and a waiting one can be cancelled', async () => {
    const { app, client } = await connect(InFlightModule);
    try {
      expect(await client.request('tools/call', { name: 'now', arguments: { text: 'a' } })).toMatchObject({
        content: [{ type: 'text', text: 'a' }],
      });
      expect(internalsOf(app).engine.inflightCount).toBe(0);
      const tools = app.get(Tools);
      const pending = client.request('tools/call', { name: 'later', arguments: { text: 'b' } }, 'slow');
      await tools.started.promise;
      expect(internalsOf(app).engine.inflightCount).toBe(1);
      await client.notify('notifications/cancelled', { requestId: 'slow', reason: 'no longer needed' });
      expect(await tools.release.promise).toBe('cancelled');
      await waitFor(() => internalsOf(app).engine.inflightCount === 0);
      void pending.catch(() => undefined);
    } finally {
      await app.close();
    }
  });

  it('hostileShape passes flat arguments without a stack, and still refuses a prototype key among scalars', () => {
    expect(hostileShape({ text: 'a', n: 1, ok: true, none: null })).toBeUndefined();
    expect(hostileShape(JSON.parse('{"text":"a","__proto__":1}'))).toBe('__proto__: the key "__proto__" is not allowed (forbiddenKey)');
    expect(hostileShape({ a: 1, constructor: 'x' })).toBe('constructor: the key "constructor" is not allowed (forbiddenKey)');
    expect(hostileShape({ a: { b: { prototype: 2 } } })).toBe('a.b.prototype: the key "prototype" is not allowed (forbiddenKey)');
  });
});
