import type { McpContext } from '../context/mcp-context';

/** What a middleware sees of one handler invocation. */
export interface Invocation {
  /** 'method': a custom method added with `app.addMethod` (args: its params, then the context). */
  readonly kind: 'tool' | 'resource' | 'prompt' | 'completion' | 'method';
  /** "Class.method" of the user handler. */
  readonly handler: string;
  /** The arguments the handler will receive (validated input first, context last). */
  readonly args: readonly unknown[];
  readonly context: McpContext | undefined;
}

/** Wraps handler invocations, koa-compose style: call `next()` at most once and return its result (or not). */
export type Middleware = (invocation: Invocation, next: () => Promise<unknown>) => Promise<unknown>;

/** Composes middleware around a final call. */
export function compose(middleware: readonly Middleware[]): (invocation: Invocation, last: () => Promise<unknown>) => Promise<unknown> {
  if (middleware.length === 0) return (_, last) => last();
  return (invocation, last) => {
    let index = -1;
    const dispatch = (i: number): Promise<unknown> => {
      if (i <= index) return Promise.reject(new Error('next() called multiple times'));
      index = i;
      if (i === middleware.length) return last();
      try {
        return Promise.resolve(middleware[i](invocation, () => dispatch(i + 1)));
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a middleware's synchronous throw becomes its rejection, the value unchanged (as koa-compose)
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}
