import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A private redis-server for one test file, never a shared instance, listening on a unix socket in
 * its own temporary directory and on no TCP port at all. redis-server cannot report a port-0 bind, and
 * probing a free port then binding it races with every other process on the machine; a socket path
 * nobody else knows cannot be taken, even across the stop and restart of the fault tests.
 */
export class PrivateRedis {
  private child?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'mcpkit-redis-'));

  private constructor(
    /** Append-only file with fsync on every write: a restart keeps everything acknowledged. */
    private readonly persistent: boolean,
  ) {}

  static async start(options: { persistent?: boolean } = {}): Promise<PrivateRedis> {
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      throw new Error('redis-server is not installed: `npm test` installs it (Debian package redis-server) when it can');
    }
    const redis = new PrivateRedis(options.persistent ?? false);
    await redis.up();
    return redis;
  }

  /** The socket's path: ioredis (and so every mcpkit Redis option) takes it where it takes a URL. */
  get url(): string {
    return join(this.dir, 'redis.sock');
  }

  /** Starts redis-server (again, after `down`); nothing when it runs. */
  async up(): Promise<void> {
    if (this.running) return;
    const durability = this.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    const child = spawn(
      'redis-server',
      ['--port', '0', '--unixsocket', this.url, '--unixsocketperm', '700', '--save', '', ...durability, '--dir', this.dir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`redis-server did not start: ${out}`));
      }, 10_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        // "Ready to accept connections tcp" on a port, "ready to accept connections at <path>" on a socket.
        if (/ready to accept connections/i.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${out}`));
      });
    });
  }

  private get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async down(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
