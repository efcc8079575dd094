import type Redis from 'ioredis';
import RedisClient, { ReplyError } from 'ioredis';
import { freePort } from '../../helpers/free-port';
import { guarded, StorageUnavailableError } from '../../../src/redis/redis-connection';
import { InvalidTaskTransitionError } from '../../../src/tasks/task-store.errors';

/** A client that is connected: `guarded` runs the call at once, and the call fails as given. */
const ready = { status: 'ready' } as Redis;
const failing = (error: Error) => guarded('The task store', ready, () => Promise.reject(error));

/** A socket error as Node makes it: a message, a `code` and the `syscall` that failed. */
const socket = (syscall: string, code: string, message: string) => Object.assign(new Error(message), { syscall, code });

/** One of ioredis's own error classes, as it names them. */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('guarded: what counts as Redis being unavailable', () => {
  it.each<[string, Error]>([
    // Connections lost, refused, timed out or closed (Node's socket errors)
    ['refused', socket('connect', 'ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6379')],
    ['reset', socket('read', 'ECONNRESET', 'read ECONNRESET')],
    ['broken pipe', socket('write', 'EPIPE', 'write EPIPE')],
    ['no such host', socket('getaddrinfo', 'ENOTFOUND', 'getaddrinfo ENOTFOUND redis.internal')],
    // ioredis's errors for a connection it does not have
    ['connect timeout', new Error('connect ETIMEDOUT')],
    ['command timeout', new Error('Command timed out')],
    ['closed', new Error('Connection is closed.')],
    ['offline', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    [
      'retries spent',
      named(
        'MaxRetriesPerRequestError',
        'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
      ),
    ],
    ['cluster redirected too often', new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 3999 127.0.0.1:6381')],
    ['cluster not ready', new Error("Cluster isn't ready and enableOfflineQueue options is false")],
    ['no startup node', new Error('None of startup nodes is available')],
    ['no slot map', new Error('Failed to refresh slots cache.')],
    ['all sentinels down', new Error('All sentinels are unreachable. Retrying from scratch after 10ms.')],
    // Redis Cluster replies: no full slot map, slots on the move
    ['CLUSTERDOWN', new ReplyError('CLUSTERDOWN The cluster is down')],
    ['CLUSTERDOWN slot', new ReplyError('CLUSTERDOWN Hash slot not served')],
    ['TRYAGAIN', new ReplyError('TRYAGAIN Multiple keys request during rehashing of slot')],
    ['MOVED', new ReplyError('MOVED 3999 127.0.0.1:6381')],
    ['ASK', new ReplyError('ASK 3999 127.0.0.1:6381')],
    // A node loading its data, demoted by a failover, or cut off from its master
    ['LOADING', new ReplyError('LOADING Redis is loading the dataset in memory')],
    ['READONLY', new ReplyError("READONLY You can't write against a read only replica.")],
    [
      'READONLY inside a script',
      new ReplyError("ERR Error running script (call to f_1a2b): @user_script:3: -READONLY You can't write against a read only replica."),
    ],
    ['MASTERDOWN', new ReplyError("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.")],
  ])('%s -> the store is unavailable', async (_, error) => {
    const rejection = failing(error);
    await expect(rejection).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(rejection).rejects.toMatchObject({ code: -32603, message: 'The task store is unavailable' });
  });

  it.each<[string, Error]>([
    ['WRONGTYPE', new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['unknown command', new ReplyError("ERR unknown command 'FOO'")],
    ['NOSCRIPT', new ReplyError('NOSCRIPT No matching script. Please use EVAL.')],
    // Words of an outage inside a reply that is not one
    ['NOPERM naming "reconnect"', new ReplyError("NOPERM User reconnect-bot has no permissions to run the 'evalsha' command")],
    ['a script error saying "Connection is closed"', new ReplyError('ERR user_script:1: Connection is closed by the script')],
    // A socket error that is not about reaching Redis, and a bug of the application
    ['a file not readable', socket('open', 'EACCES', 'EACCES: permission denied, open /etc/redis.pem')],
    ['a bug mentioning connect', new TypeError("Cannot read properties of undefined (reading 'connect')")],
  ])('%s -> passes as it is (a fault, not an outage)', async (_, error) => {
    await expect(failing(error)).rejects.toBe(error);
  });

  it("passes a store's own errors as they are", async () => {
    const error = new InvalidTaskTransitionError('t', 'completed', 'failed');
    await expect(failing(error)).rejects.toBe(error);
  });

  it('reports a client that cannot connect as unavailable, without waiting for a timeout', async () => {
    const away = new RedisClient({ port: await freePort(), host: '127.0.0.1', retryStrategy: () => 50, maxRetriesPerRequest: 0 });
    away.on('error', () => undefined);
    try {
      await expect(guarded('The event store', away, () => away.get('k'))).rejects.toMatchObject({
        message: 'The event store is unavailable',
      });
    } finally {
      away.disconnect();
    }
  });
});
