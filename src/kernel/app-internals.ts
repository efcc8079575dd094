import type { Registry } from '../registry/registry';
import type { Parts } from './bootstrap';
import type { Serving } from './serving';

/** Each application's parts and serving, for mcpkit's own entry points, tools and tests (not exported by the package). */
const internals = new WeakMap<object, Parts>();
const servings = new WeakMap<object, Serving>();

/** Records the parts an application is made of, and how it is served (its constructor does). */
export function keepInternals(app: object, parts: Parts, serving: Serving): void {
  internals.set(app, parts);
  servings.set(app, serving);
}

/** The parts `app` is made of (its registry, engine, container…). Internal: not part of the public API. */
export function internalsOf(app: object): Parts {
  return internals.get(app)!;
}

/** How `app` is served: what a front door of another entry point (mcpkit/http, mcpkit/fetch) needs of it. Internal. */
export function servingOf(app: object): Serving {
  return servings.get(app)!;
}

/** The registry `app` serves. Internal: not part of the public API. */
export function registryOf(app: object): Registry {
  return internalsOf(app).registry;
}
