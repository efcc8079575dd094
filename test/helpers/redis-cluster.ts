import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';

const run = promisify(execFile);

interface Node {
  port: number;
  child: ChildProcess;
}

/**
 * A private Redis Cluster for one test file: `masters` masters with one replica each, redis-server
 * processes on loopback TCP ports in their own temporary directory, joined by
 * `redis-cli --cluster create`. A Cluster needs TCP (its nodes tell each other and the clients host and
 * port), so ports are probed free and a node that loses the race for its port is started again on others.
 * Only the processes started here are stopped, by their PID.
 */
export class PrivateRedisCluster {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mcpkit-redis-cluster-'));
  private readonly nodes: Node[] = [];

  static async start(options: { masters?: number } = {}): Promise<PrivateRedisCluster> {
    for (const tool of ['redis-server', 'redis-cli']) {
      if (spawnSync(tool, ['--version']).status !== 0) throw new Error(`${tool} is not installed (Debian package redis-server)`);
    }
    const cluster = new PrivateRedisCluster();
    try {
      const count = (options.masters ?? 3) * 2;
      for (let i = 0; i < count; i++) cluster.nodes.push(await cluster.startNode());
      await run(
        'redis-cli',
        ['--cluster', 'create', ...cluster.nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
        {
          timeout: 30_000,
        },
      );
      await cluster.untilSettled(count);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Where a client starts: ioredis's `new Cluster(cluster.startupNodes)`. */
  get startupNodes(): { host: string; port: number }[] {
    return this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  /** The PIDs of the nodes, for a test that kills one. */
  get pids(): number[] {
    return this.nodes.map((n) => n.child.pid!);
  }

  /** One connection to each node still running, for admin commands (the caller disconnects them). */
  nodeClients(): Redis[] {
    return this.living().map((n) => new Redis({ host: '127.0.0.1', port: n.port }));
  }

  /**
   * Kills with SIGKILL (by the PID this helper started it with) the master holding the most keys, so
   * that a failover hits as much of a test's data as one master can; resolves with its port.
   */
  async killBusiestMaster(): Promise<number> {
    const masters = (await this.clusterNodes()).filter((n) => n.flags.includes('master') && !n.flags.includes('fail'));
    const sizes = await Promise.all(masters.map(async (m) => Number((await cli(m.port, 'dbsize')).trim())));
    const port = masters[sizes.indexOf(Math.max(...sizes))].port;
    const node = this.nodes.find((n) => n.port === port)!;
    const exited = new Promise((r) => node.child.once('exit', r));
    node.child.kill('SIGKILL');
    await exited;
    return port;
  }

  /** Resolves once the other nodes mark the node on `oldPort` failed and all say the cluster is ok (a replica took its slots). */
  async failedOver(oldPort: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const nodes = await this.clusterNodes().catch(() => []);
      const old = nodes.find((n) => n.port === oldPort);
      if (old?.flags.includes('fail') && (await this.allOk(this.nodes.length))) return;
      if (Date.now() > deadline) throw new Error(`no failover from port ${oldPort} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async startNode(): Promise<Node> {
    let last = '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const [port, busPort] = await freePorts(2);
      const dir = join(this.dir, String(port));
      mkdirSync(dir);
      const child = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1'],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'],
          ...['--save', '', '--appendonly', 'no', '--dir', dir],
          // A replica's first sync starts at once, not after the default 5 s wait for more replicas.
          ...['--repl-diskless-sync-delay', '0'],
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const out = await new Promise<string | undefined>((resolve) => {
        let text = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(`did not start: ${text}`);
        }, 10_000);
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (/ready to accept connections/i.test(text)) {
            clearTimeout(timer);
            resolve(undefined);
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(`exited with ${code}: ${text}`);
        });
      });
      if (out === undefined) return { port, child };
      last = out;
    }
    throw new Error(`a cluster node ${last}`);
  }

  /**
   * Every node sees the cluster as ok, with all its nodes, and every replica is in sync with its
   * master (a replica that never synced refuses to take over from a failed master).
   */
  private async untilSettled(count: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!(await this.allOk(count)) || !(await this.replicasInSync())) {
      if (Date.now() > deadline) throw new Error('the cluster did not settle within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Every running node says the cluster is ok and knows `known` nodes (a failed node stays known). */
  private async allOk(known: number): Promise<boolean> {
    const states = await Promise.all(
      this.living().map(async (n) => {
        const info = await cli(n.port, 'cluster', 'info').catch(() => '');
        return /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${known}\\b`).test(info);
      }),
    );
    return states.every(Boolean);
  }

  private async replicasInSync(): Promise<boolean> {
    const infos = await Promise.all(this.living().map((n) => cli(n.port, 'info', 'replication').catch(() => '')));
    return infos.every((info) => /role:master/.test(info) || /master_link_status:up/.test(info));
  }

  /** The nodes as the first running node sees them (CLUSTER NODES): port and flags. */
  private async clusterNodes(): Promise<{ port: number; flags: string[] }[]> {
    const text = await cli(this.living()[0].port, 'cluster', 'nodes');
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [, address, flags] = line.split(' ');
        return { port: Number(/:(\d+)@/.exec(address)![1]), flags: flags.split(',') };
      });
  }

  private living(): Node[] {
    return this.nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  }
}

/** What `redis-cli` prints for one command sent to the node on `port`. */
async function cli(port: number, ...command: string[]): Promise<string> {
  return (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...command])).stdout;
}

/** Ports the kernel just gave out on loopback, released again: free now, though another process may take one first. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}
