import type * as NodeHttp from 'node:http';
import type { Router } from '@koa/router';
import type Koa from 'koa';

// The Koa front door's packages (Koa, its router, and Node's HTTP server under them) load on first use,
// so that a stdio-only server (or a fetch-handler one) never loads them.

export function loadNodeHttp(): typeof NodeHttp {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:http') as typeof NodeHttp;
}

export function loadKoa(): { Koa: typeof Koa } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { Koa: require('koa') as typeof Koa };
}

export function loadRouter(): typeof Router {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('@koa/router') as { Router: typeof Router }).Router;
}
