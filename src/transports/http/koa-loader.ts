import type Router from '@koa/router';
import type Koa from 'koa';

// Koa and its router are loaded on first use, so that a stdio-only server never loads them.
export function loadKoa(): { Koa: typeof Koa; Router: typeof Router } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return { Koa: require('koa') as typeof Koa, Router: (require('@koa/router') as { default: typeof Router }).default };
}
