import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './free-port';

const MASTER_NAME = 'mymaster';

/** A redis-server process this helper started, and the port it listens on (127.0.0.1). */
interface Node {
  readonly port: number;
  readonly child: ChildProcess;
}

/**
 * A private Sentinel set for one test file: a master, one replica and three sentinels, each a
 * redis-server process on its own 127.0.0.1 port, all in one temporary directory. Sentinels need TCP,
 * so the ports are probed free first; a port taken meanwhile fails the start, which is retried on
 * other ports. Only the processes started here are ever stopped, by their PID.
 */
export class PrivateRedisSentinel {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mcpkit-sentinel-'));
  private readonly nodes: Node[] = [];
  private readonly sentinelNodes: Node[] = [];

  private constructor() {}

  static async start(): Promise<PrivateRedisSentinel> {
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      throw new Error('redis-server is not installed: `npm test` installs it (Debian package redis-server) when it can');
    }
    const set = new PrivateRedisSentinel();
    try {
      const master = await set.server('master', []);
      const replica = await set.server('replica', ['--replicaof', '127.0.0.1', String(master.port)]);
      await set.untilReplicating(replica.port);
      for (let i = 0; i < 3; i++) await set.sentinel(i, master.port);
      await set.untilWatched();
      return set;
    } catch (error) {
      await set.stop();
      throw error;
    }
  }

  /** The name the sentinels monitor the master under (ioredis's `name` option). */
  get name(): string {
    return MASTER_NAME;
  }

  /** The sentinels, as ioredis's `sentinels` option takes them. */
  get sentinels(): { host: string; port: number }[] {
    return this.sentinelNodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  /** The master's port, as the sentinels report it now. */
  async masterPort(): Promise<number> {
    const sentinel = new Redis({ host: '127.0.0.1', port: this.sentinelNodes[0].port, lazyConnect: true });
    try {
      const [, port] = (await sentinel.call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as [string, string];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  }

  /** A connection to the current master (the caller disconnects it). */
  async master(): Promise<Redis> {
    return new Redis({ host: '127.0.0.1', port: await this.masterPort() });
  }

  /** Kills the current master with SIGKILL (by the PID this helper started it with); resolves with its port. */
  async killMaster(): Promise<number> {
    const port = await this.masterPort();
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`the master on port ${port} is not one this helper started`);
    await kill(node.child);
    return port;
  }

  /** Resolves once the sentinels name a master other than the one on `oldPort`. */
  async failedOver(oldPort: number, timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const port = await this.masterPort().catch(() => oldPort);
      if (port !== oldPort) return port;
      if (Date.now() > deadline) throw new Error(`no failover from port ${oldPort} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinelNodes, ...this.nodes].map((n) => kill(n.child)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A data node; append-only with fsync always, as a production master persists what it acknowledges. */
  private async server(role: string, extra: string[]): Promise<Node> {
    const node = await this.spawnOnFreePort((port) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--dir',
      this.workDir(`${role}-${port}`),
      ...extra,
    ]);
    this.nodes.push(node);
    return node;
  }

  /** A sentinel: quick to declare the master down and to fail over, so that a test runs in seconds. */
  private async sentinel(index: number, masterPort: number): Promise<void> {
    const node = await this.spawnOnFreePort((port) => {
      const file = join(this.dir, `sentinel-${index}-${port}.conf`);
      // Sentinel rewrites its configuration file as it learns: it must be a file of its own.
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${this.workDir(`sentinel-${index}-${port}`)}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 5000`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      return [file, '--sentinel'];
    });
    this.sentinelNodes.push(node);
  }

  private workDir(name: string): string {
    const path = join(this.dir, name);
    mkdirSync(path, { recursive: true });
    return path;
  }

  private async spawnOnFreePort(args: (port: number) => string[]): Promise<Node> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      try {
        return { port, child: await started(spawn('redis-server', args(port), { stdio: ['ignore', 'pipe', 'pipe'] })) };
      } catch (error) {
        lastError = error; // taken between the probe and the bind: try another port
      }
    }
    throw lastError;
  }

  private async untilReplicating(port: number): Promise<void> {
    const replica = new Redis({ host: '127.0.0.1', port });
    try {
      for (let i = 0; i < 200; i++) {
        if (/master_link_status:up/.test(await replica.info('replication'))) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the replica never synchronised with the master');
    } finally {
      replica.disconnect();
    }
  }

  /** Every sentinel sees the replica and the other sentinels, so that a failover can be voted. */
  private async untilWatched(): Promise<void> {
    for (const node of this.sentinelNodes) {
      const sentinel = new Redis({ host: '127.0.0.1', port: node.port });
      try {
        for (let i = 0; ; i++) {
          const [master] = (await sentinel.call('SENTINEL', 'masters')) as string[][];
          const fields = Object.fromEntries(pairs(master));
          if (Number(fields['num-slaves']) >= 1 && Number(fields['num-other-sentinels']) >= 2) break;
          if (i > 300) throw new Error(`sentinel on ${node.port} never saw the replica and the other sentinels`);
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        sentinel.disconnect();
      }
    }
  }
}

function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** Resolves once the process says it accepts connections; rejects (the process killed) if it exits or stays silent. */
function started(child: ChildProcess): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start: ${out}`));
    }, 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // A data node says "Ready to accept connections"; a sentinel "+monitor master".
      if (/ready to accept connections|\+monitor master/i.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}
