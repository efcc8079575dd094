import { container } from 'tsyringe';
import { ForbiddenError } from '../../../src/auth/auth.errors';
import { handlerInvoker } from '../../../src/kernel/handler-invoker';
import { Authorizer } from '../../../src/protocol/authorizer';
import { mapToolResult } from '../../../src/protocol/handlers/tool-result.mapper';
import type { HandlerAccess, HandlerRef, ToolDescriptor } from '../../../src/registry/descriptors';

/*
 * The steps of a tools/call answer a synchronous case directly, not through a promise: over HTTP
 * every promise (and every await of one) also runs the async hooks AsyncLocalStorage installs for
 * the server log's request fields, a measured share of a small call's cost.
 */

const access = (over: Partial<HandlerAccess> = {}): HandlerAccess => ({
  kind: 'tool',
  name: 'echo',
  scopes: [],
  guards: [],
  public: false,
  middleware: [],
  restricted: false,
  ...over,
});

const ref = (run: (args: unknown[]) => unknown, over: Partial<HandlerAccess> = {}): HandlerRef => ({
  kind: 'tool',
  provider: undefined,
  method: 'echo',
  where: 'T.echo',
  contextFirst: false,
  access: access(over),
  run,
});

describe('the synchronous steps of a tool call', () => {
  it('Authorizer.assert decides an unrestricted handler at once, and still refuses through a promise', async () => {
    const authorizer = new Authorizer((guard) => new guard());
    expect(
      authorizer.assert(
        ref(() => 1),
        undefined,
      ),
    ).toBeUndefined();
    await expect(
      authorizer.assert(
        ref(() => 1, { restricted: true, scopes: ['s'] }),
        undefined,
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("the handler invoker hands back a synchronous method's value, and a promise behind middleware", async () => {
    const invoke = handlerInvoker(container, new Set(), []);
    expect(
      invoke(
        ref(([t]) => t),
        ['x'],
      ),
    ).toBe('x');
    const wrapped = handlerInvoker(container, new Set(), [async (_inv, next) => next()]);
    const result = wrapped(
      ref(([t]) => t),
      ['y'],
    );
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe('y');
  });

  it('mapToolResult maps a value of a tool without an output class directly', () => {
    const tool = { ...ref(() => 1), name: 'echo' } as unknown as ToolDescriptor;
    expect(mapToolResult(tool, 'hi', () => undefined)).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });
});
