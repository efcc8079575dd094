import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ROOT } from './paths';

/**
 * A server process driven by hand: write raw lines to its stdin, read every stdout line as JSON
 * (lines that are not JSON are kept apart in `garbage`: stdout must carry protocol messages only).
 */
export class RawStdioPeer {
  readonly lines: Record<string, unknown>[] = [];
  /** stdout lines that were not JSON (there must be none). */
  readonly garbage: string[] = [];
  stderr = '';
  private buffer = '';
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(
    script: string,
    args: string[] = [],
    command: string = process.execPath,
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ) {
    this.child = spawn(command, script ? [script, ...args] : args, {
      stdio: 'pipe',
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        try {
          this.lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          this.garbage.push(line);
        }
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  write(data: string | Buffer): void {
    this.child.stdin.write(data);
  }

  /**
   * Bytes the server process has read so far through read(2) and the like (`rchar` of Linux's
   * /proc/<pid>/io): it grows once the server took what was written to its stdin.
   */
  bytesRead(): number {
    const io = readFileSync(`/proc/${this.child.pid}/io`, 'utf8');
    return Number(/^rchar: (\d+)$/m.exec(io)![1]);
  }

  send(message: unknown): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** `timeoutMs`: how long the server may take to start (one built first, as `npm run sample` does, takes longer on a busy machine). */
  async initialize(timeoutMs = 10_000): Promise<void> {
    this.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await this.response('init', timeoutMs);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Resolves with the first stdout message matching, waiting for it if need be. */
  async next(predicate: (m: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching message; stdout so far: ${JSON.stringify(this.lines).slice(0, 2000)}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  response(id: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    return this.next((m) => m.id === id && ('result' in m || 'error' in m), timeoutMs);
  }

  /** Closes this end of the server's stdout, as a client that went away does. */
  closeOutput(): void {
    this.child.stdout.destroy();
  }

  endInput(): void {
    this.child.stdin.end();
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
