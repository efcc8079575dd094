import { Console } from 'node:console';

/** The console methods that write to stdout; `error`, `warn` and `trace` already write to stderr. */
const STDOUT_METHODS = [
  'log',
  'info',
  'debug',
  'dir',
  'dirxml',
  'table',
  'group',
  'groupCollapsed',
  'groupEnd',
  'count',
  'countReset',
  'time',
  'timeLog',
  'timeEnd',
] as const;
type Method = (typeof STDOUT_METHODS)[number];

let saved: Partial<Record<Method, unknown>> | undefined;
let permanent = false;
let holders = 0;

function install(): void {
  if (saved) return;
  const target = console as unknown as Record<Method, unknown>;
  const onStderr = new Console({ stdout: process.stderr, stderr: process.stderr }) as unknown as Record<
    Method,
    (...args: unknown[]) => void
  >;
  saved = {};
  for (const m of STDOUT_METHODS) {
    saved[m] = target[m];
    target[m] = onStderr[m].bind(onStderr);
  }
}

function uninstall(): void {
  if (!saved || permanent || holders > 0) return;
  Object.assign(console, saved);
  saved = undefined;
}

/**
 * Points `console.log`, `info`, `debug` (and the other methods that write to stdout) at stderr for
 * the rest of the process. Over stdio, stdout carries protocol messages only: a stray line there
 * corrupts the stream. `listen({ stdio })` calls this; call it (or import `mcpkit`'s
 * `console-to-stderr` module first thing) to move output written at import time too.
 */
export function redirectConsoleToStderr(): void {
  permanent = true;
  install();
}

/**
 * Points the console at stderr until the returned function is called (unless a permanent redirect
 * happened meanwhile). `McpApplication.create` holds it while it constructs providers: it cannot know
 * yet whether stdio will be served, and a constructor's log on stderr harms no transport.
 */
export function holdConsoleOnStderr(): () => void {
  holders++;
  install();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    uninstall();
  };
}
