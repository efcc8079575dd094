/**
 * Preloaded (`node -r .../exit-at-answer.js server.js`) by bench/start-instructions.ts: once the server
 * writes the answer to the request with id 2 (the first tools/call), the process ends at once, so that
 * what is counted is the start up to that answer and little after it (exit handlers only).
 */
import { writeSync } from 'node:fs';

const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
process.stdout.write = function (chunk: unknown, ...rest: unknown[]): boolean {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
  if (!text.includes('"id":2')) return write(chunk, ...rest);
  writeSync(1, text);
  return process.exit(0);
};
