import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A Koa middleware, typed structurally so that mcpkit's declarations need no `@types/koa`:
 * it fits `koaApp.use(...)`.
 */
export type HttpMiddleware = (context: object, next: () => Promise<unknown>) => Promise<unknown>;

/** A Node request listener (`http.createServer(listener)`, supertest). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
