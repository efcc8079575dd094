/**
 * What the instruction-counting benches (start-instructions.ts, request-instructions.ts) share: Node under
 * cachegrind with the V8 flags that make a count repeat, and the count read from valgrind's summary.
 */

/** V8 compiling and marking on the main thread (counted the same way each run), and 64 MB young generations. */
export const V8_FLAGS = ['--predictable', '--min-semi-space-size=64', '--max-semi-space-size=64'];

/** The arguments of `valgrind` that run `node <nodeArgs>` under cachegrind, counting instructions only. */
export function cachegrindArgs(nodeArgs: string[]): string[] {
  return ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', process.execPath, ...V8_FLAGS, ...nodeArgs];
}

/** The instructions valgrind's summary on stderr gives, or undefined when it gives none. */
export function instructionsIn(stderr: string): number | undefined {
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr)?.[1];
  return refs === undefined ? undefined : Number(refs.replace(/,/g, ''));
}

/**
 * The arguments of `valgrind` that run `node <nodeArgs>` under callgrind, which (unlike cachegrind) can be
 * told to zero its counts and to write them out while the process runs (`callgrind_control --zero`, then
 * `--dump`): what happens between the two is counted alone. Its dumps are `<dir>/callgrind.<pid>.<n>`.
 */
export function callgrindArgs(dir: string, nodeArgs: string[]): string[] {
  return ['--tool=callgrind', `--callgrind-out-file=${dir}/callgrind.%p`, '--dump-line=no', process.execPath, ...V8_FLAGS, ...nodeArgs];
}

/** The instructions counted in a callgrind dump (its `summary:` line), or undefined when it has none. */
export function dumpedInstructions(dump: string): number | undefined {
  const summary = /^summary:\s+(\d+)$/m.exec(dump)?.[1];
  return summary === undefined ? undefined : Number(summary);
}
