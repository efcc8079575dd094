import type { RequestTelemetry } from './telemetry-options';

/** No request of its own: such a call is the child of the active context (an SDK's context manager). */
const ACTIVE = {};

/**
 * `target` with a child span (`{prefix} {method}`, attribute `{attribute}: method`) around each call
 * of `methods`, when telemetry is on; `target` itself when it is off. Other methods pass through.
 */
export function traced<T extends object>(target: T, telemetry: RequestTelemetry | undefined, prefix: string, attribute: string, methods: ReadonlySet<string>): T {
  if (!telemetry) return target;
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof key !== 'string' || typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (!methods.has(key)) return fn.bind(object);
      return (...args: unknown[]) => telemetry.child(ACTIVE, 0, `${prefix} ${key}`, { [attribute]: key }, () => Promise.resolve(fn.apply(object, args)));
    },
  });
}
