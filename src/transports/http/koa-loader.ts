import type Koa from 'koa';

// Koa is loaded on first use, so that a stdio-only server (or a fetch-handler one) never loads it.
export function loadKoa(): { Koa: typeof Koa } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { Koa: require('koa') as typeof Koa };
}
