import type { HttpExchange } from './http-exchange';

/**
 * One route of the MCP endpoint: requests with `method` on `path`, served by `handle`. The method `*`
 * takes every method the routes before it on that path do not; GET routes serve HEAD too.
 */
export interface EndpointRoute {
  readonly method: string;
  readonly path: string;
  readonly handle: (exchange: HttpExchange) => Promise<void>;
}

/**
 * The route table as both front doors match it (Koa and the fetch handler): the first route of the
 * request's method on its path wins, else the path's `*` route; paths match case-insensitively, with or
 * without one trailing slash, as Koa's router would. Paths are looked up, not scanned.
 */
export function routeMatcher(routes: readonly EndpointRoute[]): (method: string, path: string) => EndpointRoute | undefined {
  const byPath = new Map<string, Map<string, EndpointRoute>>();
  for (const route of routes) {
    const key = routeKey(route.path);
    let methods = byPath.get(key);
    if (!methods) byPath.set(key, (methods = new Map<string, EndpointRoute>()));
    if (!methods.has(route.method)) methods.set(route.method, route);
  }
  return (method, path) => {
    const methods = byPath.get(routeKey(path));
    return methods && (methods.get(method === 'HEAD' ? 'GET' : method) ?? methods.get('*'));
  };
}

/** A path as routes compare it: lower case, without one trailing slash. */
export function routeKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}
