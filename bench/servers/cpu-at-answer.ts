/**
 * Preloaded (`node -r .../cpu-at-answer.js server.js`) by the cold-start bench: when the server first
 * writes the answer to the request with id 2 (the first tools/call) to stdout, this writes the CPU time
 * its process used since it started, `cpu <ms>`, to stderr. CPU time holds still on a machine where other
 * work delays the wall clock.
 */
import { writeSync } from 'node:fs';

const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
let reported = false;
process.stdout.write = function (chunk: unknown, ...rest: unknown[]): boolean {
  if (!reported && String(chunk).includes('"id":2')) {
    reported = true;
    const { user, system } = process.cpuUsage();
    writeSync(2, `cpu ${(user + system) / 1000}\n`);
  }
  return write(chunk, ...rest);
};
