import type { McpContext } from '../context/mcp-context';

/** What a middleware (and a call policy's key function) sees of one call of a handler. */
export interface Invocation {
  /**
   * What is called: a tool, a static resource, a resource of a template, a prompt, a completion, or a
   * custom method added with `app.addMethod` (args: its params, then the context).
   */
  readonly kind: 'tool' | 'resource' | 'template' | 'prompt' | 'completion' | 'method';
  /** The tool's or prompt's name, the resource's URI, the completed argument, or the custom method. */
  readonly name: string;
  /** "Class.method" of the user handler. */
  readonly handler: string;
  /** The arguments as the client sent them: a tool's or prompt's, a template's variables, a method's params. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The arguments the handler will receive (validated input first, context last). */
  readonly args: readonly unknown[];
  /** The handler's context: who is calling, the request's signal, progress and logging. */
  readonly context: McpContext;
}

/**
 * Wraps handler invocations, koa-compose style: call `next()` at most once and return its result (or
 * not). mcpkit's own steps (authorization, call policies, tasks, validation) are middleware of this
 * shape too, composed with yours into one chain per handler (see `Step`).
 */
export type Middleware = (invocation: Invocation, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * A middleware as mcpkit's own steps are written: the same contract, over mcpkit's richer view of the
 * call, and `next(other)` may hand the rest of the chain another one (the task boundary runs the rest
 * in the task's scope). Every `Middleware` is a `Step`.
 */
export type Step<I extends Invocation> = (invocation: I, next: (invocation?: I) => Promise<unknown>) => Promise<unknown>;

/** Composes middleware (or steps) around a final call: `next()` hands on the same invocation, `next(other)` another. */
export function compose<I extends Invocation>(
  middleware: readonly Step<I>[],
): (invocation: I, last: (invocation: I) => Promise<unknown>) => Promise<unknown> {
  if (middleware.length === 0) return (invocation, last) => last(invocation);
  return (invocation, last) => {
    let index = -1;
    const dispatch = (i: number, current: I): Promise<unknown> => {
      if (i <= index) return Promise.reject(new Error('next() called multiple times'));
      index = i;
      if (i === middleware.length) return last(current);
      try {
        return Promise.resolve(middleware[i](current, (next = current) => dispatch(i + 1, next)));
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a middleware's synchronous throw becomes its rejection, the value unchanged (as koa-compose)
        return Promise.reject(error);
      }
    };
    return dispatch(0, invocation);
  };
}
