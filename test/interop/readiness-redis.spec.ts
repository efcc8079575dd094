import { HTTP_FIXTURE } from '../helpers/paths';
import { PrivateRedis } from '../helpers/redis-server';
import { spawnHttpServer } from '../helpers/spawn-server';
import { waitFor } from '../helpers/wait-for';

type Server = Awaited<ReturnType<typeof spawnHttpServer>>;

/** The readiness endpoint of a server scaled out on Redis follows Redis going away and coming back; liveness does not. */
describe('readiness on Redis (real server process, private Redis)', () => {
  let redis: PrivateRedis;
  let server: Server;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    server = await spawnHttpServer(HTTP_FIXTURE, { REDIS_URL: redis.url });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
  });

  const get = async (path: string) => {
    const res = await fetch(new URL(path, server.url));
    return {
      status: res.status,
      body: (await res.json()) as { status: string; stores?: Record<string, { status: string; error?: string }> },
    };
  };

  it('answers 200 with every Redis store ready, 503 naming them while Redis is down, and 200 once it is back', async () => {
    const up = await get('/ready');
    expect(up).toEqual({
      status: 200,
      body: {
        status: 'ready',
        stores: { taskStore: { status: 'ready' }, eventStore: { status: 'ready' }, sessionBackplane: { status: 'ready' } },
      },
    });

    await redis.down();
    const down = await get('/ready');
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('not ready');
    for (const store of ['taskStore', 'eventStore', 'sessionBackplane']) expect(down.body.stores?.[store]?.status).toBe('not ready');
    // Liveness: the process still serves.
    expect((await get('/health')).status).toBe(200);

    await redis.up();
    // The clients reconnect on their own schedule.
    const again = await waitFor(
      async () => {
        const r = await get('/ready');
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 15_000, what: 'readiness after Redis came back' },
    );
    expect(again.body.status).toBe('ready');
  }, 30_000);
});
