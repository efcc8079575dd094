import type * as Jose from 'jose';

/** jose, loaded on first use: an application that neither verifies JWTs nor runs the OAuth proxy never loads it. */
export function loadJose(): typeof Jose {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('jose') as typeof Jose;
}
