import { basename, dirname, join } from 'node:path';

/** Compiled entry points (`npm test` runs tsc first). ROOT is the repository both from test/helpers (jest) and from dist/test/helpers (scripts/). */
const up = join(__dirname, '..', '..');
export const ROOT = basename(up) === 'dist' ? dirname(up) : up;
export const SAMPLE_MAIN = join(ROOT, 'dist', 'samples', 'notes', 'main.js');
export const FAULTY_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'faulty-server.js');
export const CONFORMANCE_MAIN = join(ROOT, 'dist', 'samples', 'conformance', 'main.js');
export const CONFORMANCE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
export const HTTP_FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'http-server.js');
/** The next era's conformance suite (npm alias of @modelcontextprotocol/conformance 0.2 alphas; it needs Node 22+). */
export const CONFORMANCE_NEXT_CLI = join(ROOT, 'node_modules', 'conformance-next', 'dist', 'index.js');
/** The tasks-extension (2026-07-28) fixture server, and the official ext-tasks client driver (ESM, run from source). */
export const TASKS_EXT_FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'tasks-ext-server.js');
export const EXT_TASKS_CLIENT = join(ROOT, 'test', 'fixtures', 'ext-tasks-client.mjs');
