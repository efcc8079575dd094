/**
 * Preloaded (`node -r .../cpu-at-answer.js server.js`) by the cold-start bench: when the server first
 * writes the answer to the request with id 2 (the first tools/call) to stdout, this writes the CPU time
 * its process used since it started to stderr, `cpu <ms>`. CPU time holds still on a machine where other
 * work delays the wall clock. With PEERS_FIRST=1 it loads mcpkit's peers itself before the server runs
 * (which then finds them loaded) and adds the CPU time from there, `cpu <ms> <ms after the peers>`: what
 * the server costs over its peers, without the noise of Node's own start and of the peers' load. A second
 * line, `faults <n> [<n after the peers>]`, counts the minor page faults: memory touched for the first time.
 */
import { writeSync } from 'node:fs';

const PEERS = ['reflect-metadata', 'class-validator', 'class-transformer', 'tsyringe'];
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded before the server's own imports, on request
if (process.env.PEERS_FIRST === '1') for (const peer of PEERS) require(peer);
const afterPeers = process.env.PEERS_FIRST === '1' ? process.cpuUsage() : undefined;
const faultsAfterPeers = process.env.PEERS_FIRST === '1' ? process.resourceUsage().minorPageFault : undefined;

const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
let reported = false;
process.stdout.write = function (chunk: unknown, ...rest: unknown[]): boolean {
  if (!reported && String(chunk).includes('"id":2')) {
    reported = true;
    const ms = ({ user, system }: NodeJS.CpuUsage) => (user + system) / 1000;
    const since = afterPeers ? ` ${ms(process.cpuUsage(afterPeers))}` : '';
    writeSync(2, `cpu ${ms(process.cpuUsage())}${since}\n`);
    // Memory touched for the first time (a minor page fault each): on a VM each costs microseconds.
    const faults = process.resourceUsage().minorPageFault;
    writeSync(2, `faults ${faults}${faultsAfterPeers === undefined ? '' : ` ${faults - faultsAfterPeers}`}\n`);
  }
  return write(chunk, ...rest);
};
