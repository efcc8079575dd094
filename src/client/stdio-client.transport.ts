import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { LineDecoder } from '../transports/line-decoder';
import { deliverMessage, isClientMessage, reportError, type ClientMessage, type McpClientTransport } from './client-transport';

export interface StdioClientOptions {
  command: string;
  args?: string[];
  /** Added to this process's environment (the child inherits the rest). */
  env?: Record<string, string>;
  cwd?: string;
  /** The child's stderr: 'inherit' (default), 'pipe' (read it from `stderr` / `stderrTail`), or 'ignore'. */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** How long close() waits after ending stdin before SIGTERM, and after SIGTERM before SIGKILL. Default 2000 ms. */
  closeGraceMs?: number;
  /** Longest line accepted from the child; a longer one is skipped and reported to onerror. Default 64 MiB. */
  maxLineBytes?: number;
}

/** Most of the child's stderr kept for `stderrTail` when it is piped. */
const STDERR_TAIL_CHARS = 64 * 1024;

/**
 * Spawns an MCP server and speaks newline-delimited JSON-RPC over its stdin/stdout. A line from the
 * child that is not JSON-RPC goes to onerror; the connection keeps going. onclose fires once, when
 * the child has exited (or could not be started).
 */
export class StdioClientTransport implements McpClientTransport {
  onmessage?: McpClientTransport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private child?: ChildProcess;
  private stderrText = '';
  private closed = false;
  private exited?: Promise<void>;

  constructor(private readonly options: StdioClientOptions) {}

  /** The child's stderr stream when `stderr: 'pipe'`, available after start(). */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  /** The last 64 KiB the child wrote to stderr (with `stderr: 'pipe'`). */
  get stderrTail(): string {
    return this.stderrText;
  }

  /** The child's process id once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('StdioClientTransport already started');
    const { command, args = [], env, cwd, stderr = 'inherit' } = this.options;
    const child = spawn(command, args, { env: { ...process.env, ...env }, cwd, stdio: ['pipe', 'pipe', stderr], windowsHide: true });
    this.child = child;
    this.exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const decoder = new LineDecoder(
      this.options.maxLineBytes ?? 64 * 1024 * 1024,
      (line) => this.line(line),
      () => this.fail(new Error('A line from the server exceeded the size limit; skipped')),
    );
    child.stdout!.on('data', (chunk: Buffer) => decoder.push(chunk));
    child.stdout!.on('end', () => decoder.flush());
    child.stdout!.on('error', (error) => this.fail(error));
    child.stdin!.on('error', (error) => this.fail(error)); // EPIPE once the child is gone
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    child.once('close', () => this.finish());
    child.on('error', (error) => {
      this.fail(error);
      if (child.pid === undefined) this.finish(); // it never started: no 'close' will come
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  }

  async send(message: ClientMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.closed || !stdin || stdin.destroyed || !stdin.writable) throw new Error('Transport closed: the server process is not running');
    const line = JSON.stringify(message) + '\n';
    await new Promise<void>((resolve, reject) => stdin.write(line, (error) => (error ? reject(error) : resolve())));
  }

  /** Ends the child's stdin, then SIGTERM after the grace period, then SIGKILL; resolves once it exited. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) {
      this.finish();
      return;
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      await this.exited;
      return;
    }
    const grace = this.options.closeGraceMs ?? 2000;
    child.stdin?.end();
    const escalate = async (signal: NodeJS.Signals) => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        this.exited!.then(() => false),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(true), grace))),
      ]);
      clearTimeout(timer);
      if (timedOut) child.kill(signal);
      return timedOut;
    };
    if (await escalate('SIGTERM')) await escalate('SIGKILL');
    await this.exited;
  }

  private line(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.fail(new Error(`The server wrote a line that is not JSON: ${line.slice(0, 120)}`));
    }
    if (!isClientMessage(message))
      return this.fail(new Error(`The server wrote a line that is not a JSON-RPC 2.0 message: ${line.slice(0, 120)}`));
    deliverMessage(this, message);
  }

  private fail(error: Error): void {
    reportError(this, error);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/** A transport that spawns `command` and speaks MCP over its stdio. */
export function stdioClientTransport(options: StdioClientOptions): StdioClientTransport {
  return new StdioClientTransport(options);
}
