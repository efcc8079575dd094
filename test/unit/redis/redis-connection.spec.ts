import type Redis from 'ioredis';
import { guarded, StorageUnavailableError } from '../../../src/redis/redis-connection';
import { InvalidTaskTransitionError } from '../../../src/tasks/task-store.errors';

/** A client that is connected: `guarded` runs the call at once, and the call fails as given. */
const ready = { status: 'ready' } as Redis;
const failing = (error: Error) => guarded('The task store', ready, () => Promise.reject(error));

describe('guarded: what counts as Redis being unavailable', () => {
  it.each([
    // Connections lost, refused, timed out or closed
    'connect ECONNREFUSED 127.0.0.1:6379',
    'read ECONNRESET',
    'write EPIPE',
    'connect ETIMEDOUT',
    'Command timed out',
    'Connection is closed.',
    "Stream isn't writeable and enableOfflineQueue options is false",
    'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
    // Redis Cluster: no full slot map, slots on the move, redirections without end, no node reachable
    'CLUSTERDOWN The cluster is down',
    'CLUSTERDOWN Hash slot not served',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'MOVED 3999 127.0.0.1:6381',
    'ASK 3999 127.0.0.1:6381',
    'Too many Cluster redirections. Last error: ReplyError: MOVED 3999 127.0.0.1:6381',
    "Cluster isn't ready and enableOfflineQueue options is false",
    'None of startup nodes is available',
    'Failed to refresh slots cache.',
    // A node loading its data, demoted by a failover, or cut off from its master
    'LOADING Redis is loading the dataset in memory',
    "READONLY You can't write against a read only replica.",
    "ERR Error running script (call to f_1a2b): @user_script:3: -READONLY You can't write against a read only replica.",
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
    // Sentinel
    'All sentinels are unreachable. Retrying from scratch after 10ms.',
  ])('%s -> the store is unavailable', async (message) => {
    const rejection = failing(new Error(message));
    await expect(rejection).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(rejection).rejects.toMatchObject({ code: -32603, message: 'The task store is unavailable' });
  });

  it.each([
    'WRONGTYPE Operation against a key holding the wrong kind of value',
    "ERR unknown command 'FOO'",
    'NOSCRIPT No matching script. Please use EVAL.',
  ])('%s -> passes as it is (a fault, not an outage)', async (message) => {
    await expect(failing(new Error(message))).rejects.toThrow(message);
    await expect(failing(new Error(message))).rejects.not.toBeInstanceOf(StorageUnavailableError);
  });

  it("passes a store's own errors as they are", async () => {
    const error = new InvalidTaskTransitionError('t', 'completed', 'failed');
    await expect(failing(error)).rejects.toBe(error);
  });

  it('reports a client that stays disconnected as unavailable', async () => {
    const away = { status: 'reconnecting', once: () => undefined, off: () => undefined } as unknown as Redis;
    await expect(guarded('The event store', away, () => Promise.resolve(1))).rejects.toMatchObject({
      message: 'The event store is unavailable',
    });
  });
});
