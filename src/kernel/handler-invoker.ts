import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { McpContext } from '../context/mcp-context';
import type { Invoke } from '../protocol/tool-invoker';
import type { HandlerRef } from '../registry/descriptors';
import { compose, type Invocation, type Middleware } from '../contracts/middleware';

type Instance = Record<string, (...a: unknown[]) => unknown>;

/**
 * How the application runs a user handler: the application's middleware, then the handler's own
 * (`@UseMiddleware`), then the method on its provider. Singletons are resolved through the container
 * once, then reused; transient providers on every call.
 */
export function handlerInvoker(container: DependencyContainer, transient: ReadonlySet<unknown>, middleware: readonly Middleware[]): Invoke {
  const instances = new Map<unknown, Instance>();
  const resolve = (token: unknown) => {
    let instance = instances.get(token);
    if (!instance) {
      instance = container.resolve(token as InjectionToken<Instance>);
      if (!transient.has(token)) instances.set(token, instance);
    }
    return instance;
  };
  // What the method returns, a promise or not: the caller awaits only a promise (see ToolInvoker).
  const call = (ref: HandlerRef, args: unknown[]): unknown => (ref.run ? ref.run(args) : resolve(ref.provider)[ref.method](...args));
  const own = new WeakMap<HandlerRef, ReturnType<typeof compose>>();
  // Middleware awaits `next()`: behind it the call is always a promise (a sync throw its rejection).
  const called = async (ref: HandlerRef, args: unknown[]): Promise<unknown> => call(ref, args);
  const inner = (ref: HandlerRef, invocation: Invocation, args: unknown[]): Promise<unknown> => {
    if (ref.access.middleware.length === 0) return called(ref, args);
    let run = own.get(ref);
    if (!run) own.set(ref, (run = compose(ref.access.middleware)));
    return run(invocation, () => called(ref, args));
  };
  const run = compose(middleware);
  const invocation = (ref: HandlerRef, args: unknown[]): Invocation => ({
    kind: ref.kind,
    handler: ref.where,
    args,
    context: args.find((a): a is McpContext => a instanceof McpContext),
  });
  return (ref, args) => {
    if (middleware.length === 0 && ref.access.middleware.length === 0) return call(ref, args);
    const inv = invocation(ref, args);
    return run(inv, () => inner(ref, inv, args));
  };
}
