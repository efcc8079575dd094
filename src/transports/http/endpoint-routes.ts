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
 * The route table as the fetch handler matches it, as Koa's router matches the same table on Node
 * (StreamableHttpTransport registers it there): the first route of the request's method on its path
 * wins; paths match case-insensitively, with or without one trailing slash.
 */
export function routeMatcher(routes: readonly EndpointRoute[]): (method: string, path: string) => EndpointRoute | undefined {
  const keyed = routes.map((route) => ({ route, key: routeKey(route.path) }));
  return (method, path) => {
    const key = routeKey(path);
    const wanted = method === 'HEAD' ? 'GET' : method;
    return keyed.find((r) => r.key === key && (r.route.method === wanted || r.route.method === '*'))?.route;
  };
}

/** A path as routes compare it: lower case, without one trailing slash. */
export function routeKey(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}
