import type { Registry } from '../registry/registry';
import type { Parts } from './bootstrap';

/** Each application's parts, for mcpkit's own tools and tests (not exported by the package). */
const internals = new WeakMap<object, Parts>();

/** Records the parts an application is made of (its constructor does). */
export function keepInternals(app: object, parts: Parts): void {
  internals.set(app, parts);
}

/** The parts `app` is made of (its registry, engine, container…). Internal: not part of the public API. */
export function internalsOf(app: object): Parts {
  return internals.get(app)!;
}

/** The registry `app` serves. Internal: not part of the public API. */
export function registryOf(app: object): Registry {
  return internalsOf(app).registry;
}
