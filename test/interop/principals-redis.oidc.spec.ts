import { redisScaleOut } from '../../src/redis';
import { type ProviderMetadata, providerMetadata, startOidcProvider } from '../helpers/oidc-provider';
import { perRequestHeaders } from '../helpers/per-request-http';
import {
  effects,
  endpointPath,
  gate,
  handshakeHeaders,
  MARKER,
  postPerRequestAs,
  openAllGates,
  openSession,
  PAIRS,
  principalOf,
  rpc,
  serveApp,
  textOf,
  VERIFIERS,
  withTasks,
  type ServedApp,
} from '../helpers/principals';
import { PrivateRedis } from '../helpers/redis-server';
import { SseReader } from '../helpers/sse-client';
import { waitFor } from '../helpers/wait-for';

type Message = { method?: string; params?: Record<string, unknown> };

/**
 * Ownership across the instances of a deployment: two mcpkit apps sharing a private Redis (scaleOut:
 * sessions, tasks, the requestState key and listen changes are shared), behind one resource URL, with
 * oidc-provider as the authorization server. Whatever instance a request reaches, what a caller created
 * stays its own: a session restored from Redis by another instance is compared with its stored owner.
 */
describe('principals across instances sharing Redis, with oidc-provider', () => {
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  let metadata: ProviderMetadata;
  let redis: PrivateRedis;
  beforeAll(async () => {
    [provider, redis] = await Promise.all([startOidcProvider(), PrivateRedis.start()]);
    metadata = await providerMetadata(provider.issuer);
  }, 30_000);
  afterAll(async () => {
    openAllGates();
    await provider?.stop();
    await redis?.stop();
  });

  describe.each(VERIFIERS)('%s', (_label, kind) => {
    /** Both instances, as a load balancer would spread one client's requests. */
    let one: ServedApp;
    let two: ServedApp;
    beforeAll(async () => {
      // One resource for both (the URL of the load balancer in front of them): a token serves on either.
      const resource = `http://mcp.principals.test${endpointPath(kind)}`;
      const instance = () =>
        serveApp(kind, metadata, { resource, app: { scaleOut: redisScaleOut({ redis: redis.url, keyPrefix: `principals-${kind}:` }) } });
      [one, two] = await Promise.all([instance(), instance()]);
    });
    // Nothing a test does, refusals included, is a fault the servers log. (Checked before close: closing
    // with a task still running logs the task store's refusals, a shutdown matter these tests leave alone.)
    afterEach(() => expect([...one.errors, ...two.errors]).toEqual([]));
    afterAll(async () => {
      openAllGates();
      await Promise.all([one?.close(), two?.close()]);
    });

    it("2025-11-25 sessions: another client's token gets 404 on either instance; the owner is served by both", async () => {
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([one.token(a), one.token(b)]);
        const sessionId = await openSession(one.url, ta);

        // The first this instance hears of the session: it restores it from Redis, owner included.
        const post = await rpc(two.url, tb, 'tools/call', { name: 'whoami', arguments: {} }, sessionId);
        expect({ pair: a, status: post.status, error: post.body.error?.code, result: post.body.result }).toEqual({
          pair: a,
          status: 404,
          error: -32001,
          result: undefined,
        });
        const get = await fetch(two.url, { method: 'GET', headers: { ...handshakeHeaders(tb, sessionId), accept: 'text/event-stream' } });
        await get.text();
        const del = await fetch(two.url, { method: 'DELETE', headers: handshakeHeaders(tb, sessionId) });
        await del.text();
        const here = await rpc(one.url, tb, 'tools/list', {}, sessionId);
        expect({ pair: a, get: get.status, delete: del.status, onCreator: here.status }).toEqual({
          pair: a,
          get: 404,
          delete: 404,
          onCreator: 404,
        });

        const mine = await rpc(two.url, ta, 'tools/call', { name: 'whoami', arguments: {} }, sessionId);
        expect(mine.status).toBe(200);
        expect(JSON.parse(textOf(mine.body.result)).principal).toBe(principalOf(a, metadata.issuer));
        expect((await rpc(one.url, ta, 'ping', {}, sessionId)).status).toBe(200);
        const ended = await fetch(two.url, { method: 'DELETE', headers: handshakeHeaders(ta, sessionId) });
        await ended.text();
        expect(ended.status).toBe(200);
        await waitFor(async () => (await rpc(one.url, ta, 'ping', {}, sessionId)).status === 404, {
          what: 'the session to end on the other instance too',
        });
      }
    });

    it('2025-11-25 tasks with sessions: the owner finds a task from a session on the other instance, another client does not', async () => {
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([one.token(a), one.token(b)]);
        const key = `redis-sessions-${kind}-${a}`;
        const first = await openSession(one.url, ta);
        const created = await rpc(one.url, ta, 'tools/call', { name: 'job', arguments: { key }, task: { ttl: 60_000 } }, first);
        const taskId = (created.body.result!.task as { taskId: string }).taskId;
        expect(taskId).toEqual(expect.any(String));

        const theirs = await openSession(two.url, tb);
        for (const method of ['tasks/get', 'tasks/cancel']) {
          expect({ pair: a, method, error: (await rpc(two.url, tb, method, { taskId }, theirs)).body.error?.code }).toEqual({
            pair: a,
            method,
            error: -32602,
          });
        }
        expect(
          ((await rpc(two.url, tb, 'tasks/list', {}, theirs)).body.result!.tasks as { taskId: string }[]).map((t) => t.taskId),
        ).not.toContain(taskId);

        const second = await openSession(two.url, ta);
        expect((await rpc(two.url, ta, 'tasks/get', { taskId }, second)).body.result).toMatchObject({ taskId, status: 'working' });
        gate(key).resolve();
        expect(textOf((await rpc(two.url, ta, 'tasks/result', { taskId }, second)).body.result)).toBe(
          `job ${key} for ${principalOf(a, metadata.issuer)}`,
        );
        for (const [url, token, id] of [
          [one.url, ta, first],
          [two.url, tb, theirs],
          [two.url, ta, second],
        ])
          await (await fetch(url, { method: 'DELETE', headers: handshakeHeaders(token, id) })).text();
      }
    });

    it('2026-07-28 tasks extension: a task created on one instance is refused to another client on the other; its owner follows it there', async () => {
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([one.token(a), one.token(b)]);
        const key = `redis-per-request-${kind}-${a}`;
        const created = await postPerRequestAs(one.url, ta, 'tools/call', { name: 'job', arguments: { key }, _meta: withTasks() });
        expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
        const taskId = created.body.result!.taskId as string;

        for (const method of ['tasks/get', 'tasks/cancel']) {
          const theirs = await postPerRequestAs(two.url, tb, method, { taskId, _meta: withTasks() });
          expect({ pair: a, method, error: theirs.body.error?.code, result: theirs.body.result }).toEqual({
            pair: a,
            method,
            error: -32602,
            result: undefined,
          });
        }
        expect((await postPerRequestAs(two.url, ta, 'tasks/get', { taskId, _meta: withTasks() })).body.result).toMatchObject({
          taskId,
          status: 'working',
        });
        gate(key).resolve();
        const done = await waitFor(
          async () => {
            const now = (await postPerRequestAs(two.url, ta, 'tasks/get', { taskId, _meta: withTasks() })).body.result;
            return now?.status === 'completed' ? now : undefined;
          },
          { what: `task ${taskId} completed` },
        );
        expect(textOf(done.result as Record<string, unknown>)).toBe(`job ${key} for ${principalOf(a, metadata.issuer)}`);
      }
    });

    it('2026-07-28 requestState: sealed on one instance, refused to another client on the other, completed there by its owner', async () => {
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([one.token(a), one.token(b)]);
        const key = `redis-state-${kind}-${a}`;
        const mine = (e: string) => e.startsWith(`${key} by `);
        const round1 = await postPerRequestAs(one.url, ta, 'tools/call', { name: 'confirm', arguments: { key } });
        expect(round1.body.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
        const retry = {
          name: 'confirm',
          arguments: { key },
          requestState: round1.body.result!.requestState,
          inputResponses: { go: { action: 'accept', content: { ok: true } } },
        };

        const replayed = await postPerRequestAs(two.url, tb, 'tools/call', retry);
        expect({ pair: a, error: replayed.body.error, result: replayed.body.result }).toEqual({
          pair: a,
          error: { code: -32602, message: 'Invalid params: requestState belongs to another caller' },
          result: undefined,
        });
        expect(effects.filter(mine)).toEqual([]);
        const completed = await postPerRequestAs(two.url, ta, 'tools/call', retry);
        expect(textOf(completed.body.result)).toBe(`confirmed ${key} by ${principalOf(a, metadata.issuer)}`);
        expect(effects.filter(mine)).toEqual([`${key} by ${principalOf(a, metadata.issuer)}`]);
      }
    });

    it("2026-07-28 subscriptions/listen: a task's notifications cross to the other instance for its owner's stream only", async () => {
      const open: SseReader[] = [];
      try {
        for (const [a, b] of PAIRS) {
          const [ta, tb] = await Promise.all([one.token(a), one.token(b)]);
          const key = `redis-listen-${kind}-${a}`;
          const created = await postPerRequestAs(one.url, ta, 'tools/call', { name: 'job', arguments: { key }, _meta: withTasks() });
          const taskId = created.body.result!.taskId as string;
          expect(taskId).toEqual(expect.any(String));
          // Both streams on the instance that does not run the task.
          const listen = async (token: string, id: string) => {
            const body = {
              jsonrpc: '2.0',
              id,
              method: 'subscriptions/listen',
              params: { notifications: { taskIds: [taskId], resourceSubscriptions: [MARKER] }, _meta: withTasks() },
            };
            const reader = await SseReader.open(two.url, {
              method: 'POST',
              headers: perRequestHeaders(body, { authorization: `Bearer ${token}` }),
              body: JSON.stringify(body),
            });
            open.push(reader);
            expect(reader.response.status).toBe(200);
            await reader.waitFor((r) => r.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged'));
            return reader;
          };
          const owners = await listen(ta, `owner-${a}`);
          const others = await listen(tb, `other-${b}`);
          gate(key).resolve();
          await owners.waitFor((r) =>
            (r.messages as Message[]).some((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed'),
          );
          // Sent after the task's change, through the same channel: once the other stream has it, it would have had the task's too.
          await one.app.notifyResourceUpdated(MARKER);
          await others.waitFor((r) => r.messages.some((m) => m.method === 'notifications/resources/updated'));
          expect((others.messages as Message[]).filter((m) => m.method === 'notifications/tasks')).toEqual([]);
          await Promise.all(open.splice(0).map((r) => r.disconnect()));
        }
      } finally {
        await Promise.all(open.map((r) => r.disconnect()));
      }
    });
  });
});
