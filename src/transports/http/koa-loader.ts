import type { IncomingMessage, ServerResponse } from 'node:http';
import type Router from '@koa/router';
import type Koa from 'koa';

/**
 * A Koa middleware, typed structurally so that mcpkit's declarations need no `@types/koa`:
 * it fits `koaApp.use(...)`.
 */
export type HttpMiddleware = (context: object, next: () => Promise<unknown>) => Promise<unknown>;

/** A Node request listener (`http.createServer(listener)`, supertest). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

// Koa and its router are loaded on first use, so that a stdio-only server never loads them.
export function loadKoa(): { Koa: typeof Koa; Router: typeof Router } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { Koa: require('koa') as typeof Koa, Router: (require('@koa/router') as { default: typeof Router }).default };
}
