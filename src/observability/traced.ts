import type { RequestTelemetry } from './telemetry-options';

/** No request of its own: such a call is the child of the active context (an SDK's context manager). */
const ACTIVE = {};

/**
 * What a traced object may add to the attributes of its spans: a store on a database names it
 * (`db.system.name: redis`) and the command an operation runs (`db.operation.name`).
 */
export interface SpanAttributesSource {
  spanAttributes(operation: string): Record<string, string>;
}

/**
 * `target` with a child span (`{prefix} {method}`, attribute `{attribute}: method`, and the target's
 * own `spanAttributes(method)` if it has them) around each call of `methods`, when telemetry is full;
 * `target` itself otherwise. Other methods pass through.
 */
export function traced<T extends object>(
  target: T,
  telemetry: RequestTelemetry | undefined,
  prefix: string,
  attribute: string,
  methods: ReadonlySet<string>,
): T {
  if (!telemetry?.recording) return target;
  const own = (target as Partial<SpanAttributesSource>).spanAttributes;
  const attributes = new Map<string, Record<string, string>>();
  for (const method of methods) attributes.set(method, { [attribute]: method, ...own?.call(target, method) });
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof key !== 'string' || typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (!methods.has(key)) return fn.bind(object);
      return (...args: unknown[]) =>
        telemetry.child(ACTIVE, 0, `${prefix} ${key}`, attributes.get(key)!, () => Promise.resolve(fn.apply(object, args)));
    },
  });
}
