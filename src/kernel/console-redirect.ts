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

/**
 * The state of the process's console, the one thing here that is not an application's: the console and
 * stdout are the process's, so who holds them is counted once for the process. Each application owns
 * its own hold (taken by `listen(stdio())` on the process's stdout, released when it closes), so no
 * application's release undoes another's hold, and one that never took the console never moves it.
 */
let saved: Partial<Record<Method, unknown>> | undefined;
let permanent = false;
let holders = 0;

let onStderr: Record<Method, (...args: unknown[]) => void> | undefined;

/**
 * The console writing to stderr, made when first used: `process.stderr` is built on first access (a
 * pipe's socket, a TTY's stream), ~12 ms at the start of a stdio server that may never log anything.
 */
function stderrConsole(): Record<Method, (...args: unknown[]) => void> {
  if (onStderr) return onStderr;
  onStderr = new Console({ stdout: process.stderr, stderr: process.stderr }) as unknown as Record<Method, (...args: unknown[]) => void>;
  return onStderr;
}

function install(): void {
  if (saved) return;
  const target = console as unknown as Record<Method, unknown>;
  saved = {};
  for (const m of STDOUT_METHODS) {
    saved[m] = target[m];
    target[m] = (...args: unknown[]) => stderrConsole()[m](...args);
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
 * corrupts the stream. `listen(stdio())` holds the console on stderr while the application serves;
 * call this (or import `mcpkit`'s `console-to-stderr` module first thing) to move output written at
 * import time too.
 */
export function redirectConsoleToStderr(): void {
  permanent = true;
  install();
}

/**
 * Points the console at stderr until the returned function is called; the console comes back once
 * every holder has released it (and no permanent redirect happened meanwhile), so one application's
 * release never undoes another's hold. `McpApplication.create` holds it while it constructs providers
 * (it cannot know yet whether stdio will be served, and a constructor's log on stderr harms no
 * transport); `listen(stdio())` holds it until the application closes.
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
