import type { McpContext } from '../../../src/context/mcp-context';
import { compose, type Invocation, type Middleware } from '../../../src/contracts/middleware';

const context = {} as McpContext;
const invocation: Invocation = {
  kind: 'tool',
  name: 'greet',
  handler: 'Tools.greet',
  arguments: { name: 'x' },
  args: [{ name: 'x' }, context],
  context,
};

describe('compose', () => {
  it('calls the handler directly when there is no middleware', async () => {
    const last = jest.fn(async () => 'result');
    await expect(compose([])(invocation, last)).resolves.toBe('result');
    expect(last).toHaveBeenCalledTimes(1);
  });

  it('runs middleware in order around the handler, onion style', async () => {
    const trace: string[] = [];
    const layer =
      (name: string): Middleware =>
      async (_, next) => {
        trace.push(`${name} in`);
        const result = await next();
        trace.push(`${name} out`);
        return result;
      };
    const run = compose([layer('a'), layer('b'), layer('c')]);
    const result = await run(invocation, async () => {
      trace.push('handler');
      return 'done';
    });
    expect(result).toBe('done');
    expect(trace).toEqual(['a in', 'b in', 'c in', 'handler', 'c out', 'b out', 'a out']);
  });

  it('hands every middleware the same invocation', async () => {
    const seen: Invocation[] = [];
    const spy: Middleware = (inv, next) => {
      seen.push(inv);
      return next();
    };
    await compose([spy, spy])(invocation, async () => undefined);
    expect(seen).toEqual([invocation, invocation]);
  });

  it('lets a middleware replace or transform the result', async () => {
    const upper: Middleware = async (_, next) => String(await next()).toUpperCase();
    const wrap: Middleware = async (_, next) => `[${String(await next())}]`;
    await expect(compose([wrap, upper])(invocation, async () => 'hi')).resolves.toBe('[HI]');
  });

  it('short-circuits: a middleware that does not call next() skips the rest and the handler', async () => {
    const inner = jest.fn<ReturnType<Middleware>, Parameters<Middleware>>((_, next) => next());
    const last = jest.fn(async () => 'handler');
    const run = compose([async () => 'cached', inner]);
    await expect(run(invocation, last)).resolves.toBe('cached');
    expect(inner).not.toHaveBeenCalled();
    expect(last).not.toHaveBeenCalled();
  });

  it('rejects next() called twice and does not run the handler again', async () => {
    const last = jest.fn(async () => 'once');
    const twice: Middleware = async (_, next) => {
      await next();
      return next();
    };
    await expect(compose([twice])(invocation, last)).rejects.toThrow('next() called multiple times');
    expect(last).toHaveBeenCalledTimes(1);
  });

  it('rejects next() called twice from an inner middleware too', async () => {
    const inner: Middleware = async (_, next) => {
      await next();
      return next();
    };
    const outer: Middleware = (_, next) => next();
    await expect(compose([outer, inner])(invocation, async () => 'x')).rejects.toThrow('next() called multiple times');
  });

  it("propagates the handler's rejection through every middleware", async () => {
    const failure = new Error('handler failed');
    const passed: string[] = [];
    const observe =
      (name: string): Middleware =>
      async (_, next) => {
        try {
          return await next();
        } catch (error) {
          passed.push(name);
          throw error;
        }
      };
    const run = compose([observe('a'), observe('b')]);
    await expect(
      run(invocation, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(passed).toEqual(['b', 'a']);
  });

  it('turns a middleware that throws synchronously into a rejection', async () => {
    const failure = new Error('sync throw');
    const throwing: Middleware = () => {
      throw failure;
    };
    const last = jest.fn(async () => 'x');
    await expect(compose([throwing])(invocation, last)).rejects.toBe(failure);
    expect(last).not.toHaveBeenCalled();
  });

  it('lets an outer middleware catch an inner error and recover', async () => {
    const recover: Middleware = async (_, next) => {
      try {
        return await next();
      } catch {
        return 'recovered';
      }
    };
    const failing: Middleware = async () => {
      throw new Error('inner');
    };
    await expect(compose([recover, failing])(invocation, async () => 'unreached')).resolves.toBe('recovered');
  });

  it('builds a reusable chain: each call starts a fresh dispatch', async () => {
    const pass: Middleware = (_, next) => next();
    const run = compose([pass, pass]);
    let n = 0;
    const last = async () => ++n;
    await expect(run(invocation, last)).resolves.toBe(1);
    await expect(run(invocation, last)).resolves.toBe(2);
    await expect(Promise.all([run(invocation, last), run(invocation, last)])).resolves.toEqual([3, 4]);
  });
});
