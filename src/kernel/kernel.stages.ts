import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { Middleware } from '../contracts/middleware';
import type { CallStep, StageSuppliers } from '../protocol/pipeline/stages';

type Instance = Record<string, (...a: unknown[]) => unknown>;

/**
 * The kernel's stages of every handler's pipeline: the application's middleware, and the invocation of
 * the handler itself: the method on its provider, resolved through the application's container (once
 * for a singleton, on every call for a transient provider), or the handler's own function (registered
 * at runtime, mounted, proxied).
 */
export function kernelStages(
  container: DependencyContainer,
  transient: ReadonlySet<unknown>,
  middleware: readonly Middleware[],
): StageSuppliers {
  const instances = new Map<unknown, Instance>();
  const resolve = (token: unknown) => {
    let instance = instances.get(token);
    if (!instance) {
      instance = container.resolve(token as InjectionToken<Instance>);
      if (!transient.has(token)) instances.set(token, instance);
    }
    return instance;
  };
  return {
    middleware: () => (middleware.length > 0 ? middleware : undefined),
    invoke: (ref) => {
      const { run, provider, method } = ref;
      // A synchronous throw becomes the call's rejection (compose catches it); a value is the step's answer.
      const step: CallStep = run ? async (call) => run(call.args, call) : async (call) => resolve(provider)[method](...call.args);
      return step;
    },
  };
}
