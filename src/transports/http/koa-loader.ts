import type * as NodeHttp from 'node:http';
import type Koa from 'koa';

// The Koa front door's packages (Koa and Node's HTTP server under it) load on first use,
// so that a stdio-only server (or a fetch-handler one) never loads them.

export function loadNodeHttp(): typeof NodeHttp {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:http') as typeof NodeHttp;
}

export function loadKoa(): { Koa: typeof Koa } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { Koa: require('koa') as typeof Koa };
}
