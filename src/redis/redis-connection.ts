import Redis from 'ioredis';
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
  return { redis, owned: typeof connection === 'string' };
}

/**
 * Runs a Redis call once the connection is ready (waiting at most `READY_WAIT_MS` while it connects
 * or reconnects), turning connection failures into StorageUnavailableError.
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

/**
 * Replies and client errors that mean "Redis is not reachable right now" rather than "this call is
 * wrong": the connection (lost, refused, timed out, closed), a cluster without a full slot map or in
 * the middle of moving slots (CLUSTERDOWN, TRYAGAIN, a MOVED/ASK storm ending in "Too many Cluster
 * redirections", no reachable node, no slots cache), a server still loading its data (LOADING), a
 * node demoted to replica by a failover (READONLY) or a replica cut off from its master (MASTERDOWN),
 * and Sentinel with no answer.
 */
const UNAVAILABLE = new RegExp(
  [
    // Connection-level
    'writeable',
    'ECONNREFUSED',
    'ECONNRESET',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'ETIMEDOUT',
    'EPIPE',
    'timed out',
    'Connection is closed',
    'MaxRetriesPerRequest',
    'Reached the max retries',
    'connect',
    // Redis Cluster
    '^(?:MOVED|ASK) \\d',
    'Too many Cluster redirections',
    "Cluster isn't ready",
    'None of startup nodes is available',
    'Failed to refresh slots cache',
    // A cluster without a full slot map or moving a slot, a node loading, demoted, or without its master:
    // at the start of a reply, or after '-' where a script passes on the error of one of its calls
    '(?:^|-)(?:CLUSTERDOWN|TRYAGAIN|LOADING|READONLY|MASTERDOWN) ',
    // Sentinel
    'All sentinels are unreachable',
  ].join('|'),
  'i',
);

/** True when `error` means that Redis cannot be reached right now (see UNAVAILABLE). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return UNAVAILABLE.test(error.message) || error.name === 'MaxRetriesPerRequestError' || error.name === 'ClusterAllFailedError';
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

const READY_WAIT_MS = 1_000;

export function whenReady(redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end') return Promise.reject(new Error('Connection is closed'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`not connected (${redis.status}) after ${READY_WAIT_MS} ms`));
    }, READY_WAIT_MS);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}

/**
 * Attributes of the spans mcpkit makes around a Redis store's calls when telemetry is full (see
 * `spanAttributes` of the stores): the database, and the command an operation runs when it is one.
 */
export function redisSpanAttributes(command?: string): Record<string, string> {
  return command ? { 'db.system.name': 'redis', 'db.operation.name': command } : { 'db.system.name': 'redis' };
}
