import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import Redis from 'ioredis';
import { injectable } from 'tsyringe';
import { Concurrency, EmptyInput, Idempotent, IDEMPOTENCY_KEY_META, McpApplication, McpModule, RateLimit, Tool } from '../../src';
import { RedisPolicyStore } from '../../src/redis';
import { McpTestClient } from '../../src/testing';
import { ROOT } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { waitFor } from '../helpers/wait-for';

/**
 * The call policies on a real Redis that goes away and comes back, as a managed Redis does (restarted
 * with its data): what a call owed Redis while it was away reaches it once it is back, a store known
 * to be down is answered at once, whoever waits on it learns of the outage, and an error that is not
 * an outage is never taken for one.
 */

/** A gate the test opens: each call of a gated tool waits on it, and says when it started. */
class Gate {
  private open?: () => void;
  private opened = new Promise<void>((resolve) => (this.open = resolve));
  private entered?: () => void;
  readonly started = new Promise<void>((resolve) => (this.entered = resolve));

  pass(): Promise<void> {
    this.entered!();
    return this.opened;
  }

  release(): void {
    this.open!();
  }
}

let gate = new Gate();
let charges = 0;

@injectable()
class FaultTools {
  @Concurrency({ max: 1, onStoreError: 'closed' })
  @Tool({ description: 'One at a time, refused while the store is away' })
  async single(_input: EmptyInput) {
    await gate.pass();
    return 'single done';
  }

  @Concurrency({ max: 1, queue: 1, queueTimeoutMs: 60_000 })
  @Tool({ description: 'One at a time, one more queued; runs without a slot while the store is away' })
  async queued(_input: EmptyInput) {
    await gate.pass();
    return 'queued done';
  }

  @Idempotent()
  @Tool({ description: 'Charges once per key' })
  async charge(_input: EmptyInput) {
    charges++;
    await gate.pass();
    return `charge ${charges}`;
  }

  @RateLimit({ limit: 1000, windowMs: 60_000 })
  @Tool({ description: 'Rate limited, let through while the store is away' })
  limited(_input: EmptyInput) {
    return 'limited done';
  }
}

@McpModule({ providers: [FaultTools], server: { name: 'policy-faults', version: '1.0.0' } })
class FaultsModule {}

const quiet = { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } };
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;
const keyed = (key: string) => ({ name: 'charge', arguments: {}, _meta: { [IDEMPOTENCY_KEY_META]: key } });

/** Resolves with what `promise` settles to, or rejects saying what did not happen within `ms`. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The answer to a call, a result or the error's JSON-RPC code and message. */
function answer(client: McpTestClient, params: Record<string, unknown>): Promise<unknown> {
  return client.request('tools/call', params).then(
    (result) => text(result),
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

const unavailable = { code: -32603, message: 'The policy store is unavailable' };

describe('call policies while Redis goes away and comes back with its data', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  let store: RedisPolicyStore;
  let app: McpApplication;
  let client: McpTestClient;

  beforeAll(async () => {
    redis = await PrivateRedis.start({ persistent: true });
  }, 30_000);
  beforeEach(async () => {
    gate = new Gate();
    charges = 0;
    await redis.up(); // after a test that left it down
    admin = new Redis(redis.url);
    await admin.flushall();
    store = new RedisPolicyStore(redis.url);
    app = await McpApplication.create(FaultsModule, { ...quiet, policies: { store } });
    client = await McpTestClient.connect(app.connectInMemory());
  }, 30_000);
  afterEach(async () => {
    gate.release();
    admin.disconnect();
    await app.close();
    await store.close();
  });
  afterAll(() => redis?.stop());

  /** Restarts Redis (its data kept) and waits until `probe` no longer meets the outage. */
  async function backUp(probe: () => Promise<unknown>): Promise<unknown> {
    await redis.up();
    return waitFor(
      async () => {
        const got = await probe();
        return JSON.stringify(got) === JSON.stringify(unavailable) ? undefined : { got };
      },
      { timeoutMs: 15_000, intervalMs: 100, what: 'the store to answer again' },
    ).then(({ got }) => got);
  }

  it('releases the slot of a call answered while Redis was away, once it is back', async () => {
    const first = answer(client, { name: 'single', arguments: {} });
    await gate.started;
    await redis.down();
    gate.release();
    expect(await first).toBe('single done');
    // Without the owed release, the slot (kept by Redis) would refuse every call for its 10-minute lease.
    expect(await backUp(() => answer(client, { name: 'single', arguments: {} }))).toBe('single done');
  });

  it('stores the result of a keyed call that ended while Redis was away: its retry gets it, the handler ran once', async () => {
    const first = answer(client, keyed('during-outage'));
    await gate.started;
    await redis.down();
    gate.release();
    expect(await first).toBe('charge 1');
    // Without it, the retry would find the call still running and wait for `runningMs` (5 minutes).
    expect(
      await within(
        20_000,
        'the retry',
        backUp(() => answer(client, keyed('during-outage'))),
      ),
    ).toBe('charge 1');
    expect(charges).toBe(1);
  });

  it('answers calls at once while Redis is known to be down, per onStoreError', async () => {
    expect(await answer(client, { name: 'limited', arguments: {} })).toBe('limited done');
    await redis.down();
    // Each would wait a second for a connection that is known to be gone: 20 calls, at least 20 s.
    const answers = await within(
      10_000,
      '20 calls with the store down',
      (async () => {
        const got: unknown[] = [];
        for (let i = 0; i < 20; i++) got.push(await answer(client, { name: 'limited', arguments: {} }));
        return got;
      })(),
    );
    expect(answers).toEqual(Array(20).fill('limited done'));
    expect(await answer(client, { name: 'single', arguments: {} })).toEqual(unavailable);
  });

  /** Waits until some call waits on a Redis channel (a retry for a result, a queued call for a slot). */
  const someoneWaits = () =>
    waitFor(async () => ((await admin.pubsub('CHANNELS', '*')) as string[]).length > 0, { timeoutMs: 10_000, what: 'a waiter' });

  it('tells a retry waiting for a running call of the outage at once (idempotency fails closed)', async () => {
    const first = answer(client, keyed('waited-on'));
    await gate.started;
    const retry = answer(client, keyed('waited-on'));
    await someoneWaits();
    await redis.down();
    // The waiter read Redis again only every 5 s, and kept waiting through an outage.
    expect(await within(4_000, 'the waiting retry', retry)).toEqual(unavailable);
    gate.release();
    expect(await first).toBe('charge 1');
  });

  it('tells a queued call of the outage at once (concurrency fails open: it runs)', async () => {
    const first = answer(client, { name: 'queued', arguments: {} });
    await gate.started;
    const second = answer(client, { name: 'queued', arguments: {} });
    await someoneWaits();
    await redis.down();
    gate.release();
    expect(await within(4_000, 'the queued call', second)).toBe('queued done');
    expect(await first).toBe('queued done');
  });
});

describe('an error of Redis that is not an outage', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
  }, 30_000);
  afterAll(() => redis?.stop());

  it('fails the call rather than letting it through as if the store were away (NOPERM naming a user "reconnect-bot")', async () => {
    const admin = new Redis(redis.url);
    // A user that may not run scripts: each reply names the user, and "connect" is no outage.
    await admin.acl('SETUSER', 'reconnect-bot', 'on', '>secret', '~*', '&*', '+@all', '-evalsha', '-eval');
    const bot = new Redis({ path: redis.url, username: 'reconnect-bot', password: 'secret' });
    const store = new RedisPolicyStore(bot);
    const app = await McpApplication.create(FaultsModule, { ...quiet, policies: { store } });
    try {
      const client = await McpTestClient.connect(app.connectInMemory());
      expect(await answer(client, { name: 'limited', arguments: {} })).toMatchObject({ code: -32603 });
    } finally {
      await app.close();
      await store.close();
      bot.disconnect();
      admin.disconnect();
    }
  });
});

describe('many calls while the store connects', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
  }, 30_000);
  afterAll(() => redis?.stop());

  it('prints no MaxListenersExceededWarning: 20 calls made before the connection is ready wait for it', async () => {
    // In a process of its own: the warning goes to its stderr, as a user would see it.
    const script = `
      const { RedisPolicyStore } = require(${JSON.stringify(join(ROOT, 'dist', 'src', 'redis'))});
      const store = new RedisPolicyStore(${JSON.stringify(redis.url)});
      Promise.all(Array.from({ length: 20 }, () => store.consume('start', 100, 60000))).then(async (decisions) => {
        console.log('allowed ' + decisions.filter((d) => d.allowed).length);
        await store.close();
      });`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', script], { timeout: 30_000 });
    expect({ stdout, stderr }).toEqual({ stdout: 'allowed 20\n', stderr: '' });
  });
});
