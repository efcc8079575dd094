import { join } from 'node:path';

/** Compiled entry points (`npm test` runs tsc first). */
export const ROOT = join(__dirname, '..', '..');
export const SAMPLE_MAIN = join(ROOT, 'dist', 'samples', 'notes', 'main.js');
export const FAULTY_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'faulty-server.js');
export const CONFORMANCE_MAIN = join(ROOT, 'dist', 'samples', 'conformance', 'main.js');
export const CONFORMANCE_CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
export const HTTP_FIXTURE = join(ROOT, 'dist', 'test', 'fixtures', 'http-server.js');
