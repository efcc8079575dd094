import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { McpContext } from '../context/mcp-context';
import type { Invoke } from '../protocol/tool-invoker';
import type { HandlerRef } from '../registry/descriptors';
import { compose, type Invocation, type Middleware } from '../contracts/middleware';

type Instance = Record<string, (...a: unknown[]) => unknown>;

/** What the invoker needs of the call policies: whether a handler's run is wrapped, and the wrapping. */
export interface HandlerPolicyRunner {
  wraps(ref: HandlerRef): boolean;
  around(ref: HandlerRef, args: unknown[], run: (args: unknown[]) => Promise<unknown>): Promise<unknown>;
}

/**
 * How the application runs a user handler: the application's middleware, then the handler's own
 * (`@UseMiddleware`), then the method on its provider. Singletons are resolved through the container
 * once, then reused; transient providers on every call.
 */
export function handlerInvoker(
  container: DependencyContainer,
  transient: ReadonlySet<unknown>,
  middleware: readonly Middleware[],
  /** The handler's policies that wrap its run (a concurrency limit, a timeout), outside the middleware. */
  policies: HandlerPolicyRunner,
): Invoke {
  const instances = new Map<unknown, Instance>();
  const resolve = (token: unknown) => {
    let instance = instances.get(token);
    if (!instance) {
      instance = container.resolve(token as InjectionToken<Instance>);
      if (!transient.has(token)) instances.set(token, instance);
    }
    return instance;
  };
  // What the method returns, as it returns it: a synchronous method's value is not wrapped in a promise.
  const call = (ref: HandlerRef, args: unknown[]): unknown => (ref.run ? ref.run(args) : resolve(ref.provider)[ref.method](...args));
  // Middleware's next() is a promise (a synchronous throw its rejection).
  const next = async (ref: HandlerRef, args: unknown[]): Promise<unknown> => call(ref, args);
  const own = new WeakMap<HandlerRef, ReturnType<typeof compose>>();
  const inner = (ref: HandlerRef, invocation: Invocation, args: unknown[]): Promise<unknown> => {
    if (ref.access.middleware.length === 0) return next(ref, args);
    let run = own.get(ref);
    if (!run) own.set(ref, (run = compose(ref.access.middleware)));
    return run(invocation, () => next(ref, args));
  };
  const run = compose(middleware);
  const invocation = (ref: HandlerRef, args: unknown[]): Invocation => ({
    kind: ref.kind,
    handler: ref.where,
    args,
    context: args.find((a): a is McpContext => a instanceof McpContext),
  });
  const through = (ref: HandlerRef, args: unknown[]): unknown => {
    if (middleware.length === 0 && ref.access.middleware.length === 0) return call(ref, args);
    const inv = invocation(ref, args);
    return run(inv, () => inner(ref, inv, args));
  };
  return (ref, args) => (policies.wraps(ref) ? policies.around(ref, args, async (a) => through(ref, a)) : through(ref, args));
}
