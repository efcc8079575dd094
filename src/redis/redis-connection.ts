import Redis, { ReplyError } from 'ioredis';
import type { Cluster, RedisOptions } from 'ioredis';
import { McpError } from '../mcp/mcp.error';
import { StorageUnavailableError, TaskStoreError } from '../tasks/task-store.errors';

/**
 * A Redis connection given as a URL (mcpkit owns it) or as an ioredis client the caller owns: a `Redis`
 * (one node, or Sentinel with `sentinels` and `name`) or a `Cluster`.
 */
export type RedisConnection = string | Redis | Cluster;

/** The client a store talks to: one node (Sentinel included) or a Cluster; both have `duplicate()` for subscribers. */
export type RedisClient = Redis | Cluster;

/** Options for connections mcpkit opens itself: fail fast rather than queue while Redis is away. */
export const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2_000,
  commandTimeout: 2_000,
  lazyConnect: false,
  retryStrategy: (attempt) => Math.min(50 * attempt, 1_000),
  // A node demoted by a failover answers writes with READONLY: reconnect, so a name that moved to the
  // new master (a managed Redis's endpoint) reaches it; the failed command is reported as unavailable.
  reconnectOnError: (error) => /^READONLY/.test(error.message),
};

/** Storage (Redis) could not be reached; sent to clients as a -32603 error naming the store. */
export { StorageUnavailableError };

/** Opens (or adopts) a command connection and a subscriber connection; errors are logged, never thrown as events. */
export function connect(connection: RedisConnection, onError: (error: Error) => void): { redis: RedisClient; owned: boolean } {
  const redis = typeof connection === 'string' ? new Redis(connection, FAIL_FAST) : connection;
  redis.on('error', onError);
  watchOf(redis);
  return { redis, owned: typeof connection === 'string' };
}

/**
 * Runs a Redis call once the connection is ready (see `whenReady`), turning a failure to reach Redis
 * into StorageUnavailableError.
 */
export async function guarded<T>(what: string, redis: RedisClient, call: () => Promise<T>): Promise<T> {
  try {
    await whenReady(redis);
    return await call();
  } catch (error) {
    // A store's own errors pass as they are (a cursor reading "connect" is not a connection failure).
    if (error instanceof McpError || error instanceof TaskStoreError) throw error;
    if (isConnectionError(error)) throw new StorageUnavailableError(what, error);
    throw error;
  }
}

/** mcpkit's own: a call was not sent, as the connection is not ready (see `whenReady`). */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
}

/**
 * Replies meaning "this node cannot serve that right now" rather than "this call is wrong": a cluster
 * without a full slot map or moving a slot (CLUSTERDOWN, TRYAGAIN, MOVED and ASK), a node loading its
 * data (LOADING), demoted to replica by a failover (READONLY) or cut off from its master (MASTERDOWN).
 */
const UNAVAILABLE_REPLIES = new Set(['CLUSTERDOWN', 'TRYAGAIN', 'MOVED', 'ASK', 'LOADING', 'READONLY', 'MASTERDOWN']);

/** A reply's code: its first word, or that of the call a script passed on (`... -READONLY You can't ...`). */
const REPLY_CODES = /(?:^|-)([A-Z]+) /g;

/** The `code` of Node's socket errors when Redis cannot be reached (a unix socket absent: ENOENT). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENOENT',
]);

/** ioredis's errors that have classes of their own (told by name: they are not all exported). */
const CLIENT_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError', 'AbortError', 'NotConnectedError']);

/**
 * ioredis's plain errors for a connection it does not have, by the start of their fixed messages:
 * closed, not writeable (no offline queue), a command or connect timeout, a cluster not ready, without
 * reachable nodes or a slot map, redirected too often, and Sentinel with no answer.
 */
const CLIENT_MESSAGES = [
  'Connection is closed',
  "Stream isn't writeable",
  'Command timed out',
  'connect ETIMEDOUT',
  "Cluster isn't ready",
  'Cluster is disconnected',
  'Node is disconnected',
  'None of startup nodes is available',
  'Failed to refresh slots cache',
  'Too many Cluster redirections',
  'All sentinels are unreachable',
];

/**
 * True when `error` means that Redis cannot be reached right now, told by what made it: a reply with
 * one of UNAVAILABLE_REPLIES' codes, a socket error, or one of ioredis's errors for a missing
 * connection. Any other error (a reply such as NOPERM or WRONGTYPE, a bug) is not an outage, whatever
 * its text says.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof ReplyError) return [...error.message.matchAll(REPLY_CODES)].some(([, code]) => UNAVAILABLE_REPLIES.has(code));
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall !== undefined && code !== undefined) return SOCKET_CODES.has(code);
  return CLIENT_ERROR_NAMES.has(error.name) || CLIENT_MESSAGES.some((start) => error.message.startsWith(start));
}

/**
 * A second connection of `client`, for pub/sub, which its user re-subscribes on each 'ready': ioredis's
 * own re-subscription of a single node leaves its promise unhandled, and a connection dropped again
 * before the reply would end the process on that rejection. A Cluster keeps its own subscriber node
 * and re-subscribes it itself.
 */
export function subscriberOf(client: RedisClient): RedisClient {
  return isCluster(client) ? client.duplicate() : client.duplicate({ autoResubscribe: false });
}

/** The last (UN)SUBSCRIBE sent on each subscriber connection (see `pubsub`). */
const pubsubTails = new WeakMap<RedisClient, Promise<unknown>>();

/**
 * SUBSCRIBE or UNSUBSCRIBE on a subscriber connection, one command at a time. Since ioredis 5.8.2 a
 * command sent while a connection is in its handshake goes out before the ready check's INFO, which
 * Redis then refuses in subscriber mode, failing the command (redis/ioredis#2037, open). A Cluster's
 * subscriber connects on its first SUBSCRIBE, so concurrent first subscriptions (sessions opened at
 * once) met it every time. In turn, every command but the first is sent once the connection is ready.
 */
export function pubsub(subscriber: RedisClient, command: 'subscribe' | 'unsubscribe', channels: string[]): Promise<unknown> {
  const sent = (pubsubTails.get(subscriber) ?? Promise.resolve()).then(() => subscriber[command](...channels));
  pubsubTails.set(
    subscriber,
    sent.catch(() => undefined),
  );
  return sent;
}

function isCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}

/** How long a call waits for a connection being made (at the start, or once after a drop). */
const READY_WAIT_MS = 1_000;

/**
 * The state of a client's connection as its stores see it, one per client whatever the number of
 * stores sharing it (one listener of each event on the client). Redis is known to be down once an
 * attempt to connect failed since the connection was last ready: a call is then answered at once
 * (its store's StorageUnavailableError) rather than after a wait, and whoever waits learns of it.
 * A drop alone is not yet down: the reconnection that follows gets READY_WAIT_MS, as a failover does.
 */
export class ConnectionWatch {
  private down = false;
  private readonly waiting = new Set<(error?: Error) => void>();
  private readonly onReady = new Set<() => void>();
  private readonly onDown = new Set<() => void>();

  constructor(private readonly redis: RedisClient) {
    let attemptReady = redis.status === 'ready';
    redis.on('ready', () => {
      attemptReady = true;
      this.down = false;
      // What the stores owe Redis first, then the calls that waited: on one connection, in that order.
      for (const listener of [...this.onReady]) listener();
      for (const waiter of [...this.waiting]) waiter();
    });
    redis.on('close', () => {
      const failed = !attemptReady;
      attemptReady = false;
      if (failed && !this.down) this.wentDown();
    });
    redis.on('end', () => this.wentDown());
  }

  /** Settles once the connection is ready; at once when it is, or when Redis is known to be down. */
  ready(): Promise<void> {
    const { status } = this.redis;
    if (status === 'ready') return Promise.resolve();
    if (status === 'end') return Promise.reject(new NotConnectedError('Connection is closed'));
    if (this.down) return Promise.reject(new NotConnectedError(`Redis is down (${status})`));
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(timer);
        this.waiting.delete(settle);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () => settle(new NotConnectedError(`not connected (${this.redis.status}) after ${READY_WAIT_MS} ms`)),
        READY_WAIT_MS,
      );
      this.waiting.add(settle);
    });
  }

  /** Calls `listener` each time the connection is (again) ready; returns the function that stops it. */
  whenReady(listener: () => void): () => void {
    this.onReady.add(listener);
    return () => this.onReady.delete(listener);
  }

  /** Calls `listener` each time Redis becomes known to be down; returns the function that stops it. */
  whenDown(listener: () => void): () => void {
    this.onDown.add(listener);
    return () => this.onDown.delete(listener);
  }

  private wentDown(): void {
    this.down = true;
    const error = new NotConnectedError(`Redis is down (${this.redis.status})`);
    for (const waiter of [...this.waiting]) waiter(error);
    for (const listener of [...this.onDown]) listener();
  }
}

const watches = new WeakMap<RedisClient, ConnectionWatch>();

/** The watch of `redis`'s connection (made with the client's first store). */
export function watchOf(redis: RedisClient): ConnectionWatch {
  let watch = watches.get(redis);
  if (!watch) watches.set(redis, (watch = new ConnectionWatch(redis)));
  return watch;
}

/** Settles once `redis` is ready: see ConnectionWatch.ready. */
export function whenReady(redis: RedisClient): Promise<void> {
  return redis.status === 'ready' ? Promise.resolve() : watchOf(redis).ready();
}

/**
 * Attributes of the spans mcpkit makes around a Redis store's calls when telemetry is full (see
 * `spanAttributes` of the stores): the database, and the command an operation runs when it is one.
 */
export function redisSpanAttributes(command?: string): Record<string, string> {
  return command ? { 'db.system.name': 'redis', 'db.operation.name': command } : { 'db.system.name': 'redis' };
}
