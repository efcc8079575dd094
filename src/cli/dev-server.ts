import { type ChildProcess, spawn } from 'node:child_process';
import { type Readable, type Writable } from 'node:stream';
import { createInterface } from 'node:readline';

export interface DevServerOptions {
  readonly js: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Serve over stdio: the server's stdin/stdout are proxied to ours, and the session survives restarts. */
  readonly stdio: boolean;
  readonly log: (line: string) => void;
}

const REPLAY_ID = 'mcpkit-dev-replay';
const STOP_GRACE_MS = 5_000;

/**
 * The server process `mcpkit dev` runs, restarted on demand. Over stdio it keeps the client's
 * session alive across restarts: it replays the client's `initialize` to each new process (hiding the
 * answer), holds messages while no process runs, and fails requests the old process left unanswered.
 */
export class DevServer {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private initialize?: Record<string, unknown>;
  private initialized = false;
  private readonly held: string[] = [];
  private readonly pending = new Map<string, unknown>();
  private closed = false;

  constructor(
    private readonly options: DevServerOptions,
    private readonly stdout: Writable = process.stdout,
  ) {}

  /** Feeds the client's side (our stdin) to the server, over stdio. */
  attachClient(input: Readable, onEnd: () => void): void {
    createInterface({ input, crlfDelay: Infinity })
      .on('line', (line) => this.fromClient(line))
      .on('close', onEnd);
  }

  start(): void {
    if (this.closed) return;
    const { js, args, env, stdio } = this.options;
    const child = spawn(process.execPath, [js, ...args], {
      env,
      stdio: stdio ? ['pipe', 'pipe', 'inherit'] : ['ignore', 'inherit', 'inherit'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        if (this.child === child) {
          this.child = undefined;
          this.options.log(`server exited (${signal ?? `code ${code}`}); waiting for a change to restart it`);
        }
        this.failPending();
        resolve();
      });
    });
    child.once('error', (error) => this.options.log(`could not start the server: ${error.message}`));
    if (!stdio) return;
    child.stdin!.on('error', () => undefined); // a server that exits mid-write is reported by 'exit'
    createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', (line) => this.fromServer(line));
    if (this.initialize) {
      this.toServer(JSON.stringify({ ...this.initialize, id: REPLAY_ID }));
      if (this.initialized) this.toServer(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    }
    for (const line of this.held.splice(0)) this.toServer(line);
  }

  /** Stops the running server: SIGTERM, then SIGKILL when it does not exit in time. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (this.options.stdio) child.stdin!.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  /** Whether a server process runs now. */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** Stops the server for good: a restart still in progress does not bring it back. */
  close(): Promise<void> {
    this.closed = true;
    return this.stop();
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }

  private fromClient(line: string): void {
    const message = parse(line);
    if (message?.method === 'initialize' && 'id' in message) this.initialize = message;
    if (message?.method === 'notifications/initialized') this.initialized = true;
    if (message && typeof message.method === 'string' && 'id' in message) this.pending.set(JSON.stringify(message.id), message.id);
    if (this.child) this.toServer(line);
    else this.held.push(line);
  }

  private fromServer(line: string): void {
    const message = parse(line);
    if (message && 'id' in message && message.method === undefined) {
      if (message.id === REPLAY_ID) return;
      this.pending.delete(JSON.stringify(message.id));
    }
    this.stdout.write(line + '\n');
  }

  private toServer(line: string): void {
    this.child?.stdin?.write(line + '\n');
  }

  /** Requests the stopped server never answered get an error, so the client is not left waiting. */
  private failPending(): void {
    for (const id of this.pending.values()) {
      this.stdout.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: { code: -32603, message: 'The server restarted (mcpkit dev) before answering; send the request again' },
        }) + '\n',
      );
    }
    this.pending.clear();
  }
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
