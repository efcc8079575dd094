import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ProviderMetadata, providerMetadata, startOidcProvider } from '../helpers/oidc-provider';
import {
  effects,
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
  verifierFor,
  VERIFIERS,
  withTasks,
  type ServedApp,
} from '../helpers/principals';
import { perRequestHeaders } from '../helpers/per-request-http';
import { sdk2 } from '../helpers/sdk2';
import { SseReader } from '../helpers/sse-client';
import { waitFor } from '../helpers/wait-for';

type Message = {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

/**
 * Who owns what, with a real authorization server (oidc-provider) and both of mcpkit's verifiers: every
 * caller has a principal (its `sub` qualified by the issuer, else its client id), and sessions, SSE
 * streams, HTTP+SSE sessions, tasks of both eras, requestState and listen streams belong to it. Each
 * case is played by two machine clients whose client_credentials tokens carry no `sub` (before
 * principals, mcpkit keyed ownership on `sub` alone, so such clients shared everything) and by two
 * users whose tokens carry one.
 */
describe('principals with oidc-provider as the authorization server', () => {
  let provider: Awaited<ReturnType<typeof startOidcProvider>>;
  let metadata: ProviderMetadata;
  const open: SseReader[] = [];
  beforeAll(async () => {
    provider = await startOidcProvider();
    metadata = await providerMetadata(provider.issuer);
  });
  afterAll(async () => {
    openAllGates();
    await Promise.all(open.splice(0).map((r) => r.disconnect()));
    await provider?.stop();
  });
  afterEach(() => Promise.all(open.splice(0).map((r) => r.disconnect())));

  const listenTo = async (url: string, body: unknown, init: RequestInit): Promise<SseReader> => {
    const reader = await SseReader.open(url, { ...init, body: JSON.stringify(body) });
    open.push(reader);
    return reader;
  };

  it('JwtVerifier refuses a JWT of the issuer, for this resource, whose typ is not at+jwt; requireAccessTokenType: false accepts it', async () => {
    const strict = await serveApp('jwt', metadata, { http: { sessions: false } });
    const lax = await serveApp('jwt', metadata, {
      http: { sessions: false },
      verifier: verifierFor('jwt', metadata, { requireAccessTokenType: false }),
    });
    try {
      const token = await strict.token('machine-typ-jwt');
      expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ typ: 'JWT', alg: 'RS256' });
      const refused = await rpc(strict.url, token, 'tools/call', { name: 'whoami', arguments: {} });
      expect(refused.status).toBe(401);
      const res = await fetch(strict.url, {
        method: 'POST',
        headers: handshakeHeaders(token),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      await res.text();
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer error="invalid_token", error_description="The token is not an access token (its typ is not at+jwt)", resource_metadata="${new URL(strict.url).origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`,
      );
      // The same kind of token, from the same issuer, for the lax server's resource: accepted.
      const accepted = await rpc(lax.url, await lax.token('machine-typ-jwt'), 'tools/call', { name: 'whoami', arguments: {} });
      expect(accepted.status).toBe(200);
      expect(JSON.parse(textOf(accepted.body.result))).toEqual({
        principal: principalOf('machine-typ-jwt', metadata.issuer),
        subject: null,
        clientId: 'machine-typ-jwt',
        issuer: metadata.issuer,
      });
      // A proper at+jwt token is accepted by the strict one.
      expect((await rpc(strict.url, await strict.token('machine-a'), 'tools/call', { name: 'whoami', arguments: {} })).status).toBe(200);
      expect([...strict.errors, ...lax.errors]).toEqual([]);
    } finally {
      await Promise.all([strict.close(), lax.close()]);
    }
  });

  describe.each(VERIFIERS)('%s', (_label, kind) => {
    /** Sessions on (2025-11-25 sessions, HTTP+SSE, and 2026-07-28 requests, which never have sessions). */
    let sessionful: ServedApp;
    /** `sessions: false`: every 2025-11-25 request on its own. */
    let stateless: ServedApp;
    beforeAll(async () => {
      [sessionful, stateless] = await Promise.all([serveApp(kind, metadata), serveApp(kind, metadata, { http: { sessions: false } })]);
    });
    // Nothing a test does, refusals included, is a fault the server logs.
    afterEach(() => expect([...sessionful.errors, ...stateless.errors]).toEqual([]));
    afterAll(async () => {
      openAllGates();
      await Promise.all([sessionful?.close(), stateless?.close()]);
    });

    it('gives ctx.auth.principal: the client for a token without sub, the subject for a token with one (official SDK 1.x and 2.x clients)', async () => {
      const machine = await sessionful.token('machine-a');
      if (kind === 'jwt') expect(JSON.parse(Buffer.from(machine.split('.')[1], 'base64url').toString())).not.toHaveProperty('sub');
      else expect(machine.split('.')).toHaveLength(1); // opaque: only introspection tells who it is
      const legacy = new Client({ name: 'principals', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(sessionful.url), {
        requestInit: { headers: { Authorization: `Bearer ${machine}` } },
      });
      await legacy.connect(transport);
      const who = JSON.parse(textOf(await legacy.callTool({ name: 'whoami', arguments: {} })));
      expect(who).toEqual({
        principal: `client:machine-a@${encodeURIComponent(metadata.issuer)}`,
        subject: null,
        clientId: 'machine-a',
        issuer: metadata.issuer,
      });
      await transport.terminateSession();
      await legacy.close();

      const alice = await sessionful.token('user-alice');
      const client = new sdk2.Client({ name: 'principals', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(sessionful.url), { authProvider: { token: async () => alice } }));
      const seen = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(seen).toEqual({
        principal: `sub:alice@${encodeURIComponent(metadata.issuer)}`,
        subject: 'alice',
        clientId: 'user-alice',
        issuer: metadata.issuer,
      });
      await client.close();
    });

    it('2025-11-25 sessions: another client gets 404 for POST, GET and DELETE on a session, which goes on serving its owner', async () => {
      const { url } = sessionful;
      const stream = (token: string, sessionId: string) => ({
        headers: { ...handshakeHeaders(token, sessionId), accept: 'text/event-stream' },
      });
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([sessionful.token(a), sessionful.token(b)]);
        const sessionId = await openSession(url, ta);

        const post = await rpc(url, tb, 'tools/call', { name: 'whoami', arguments: {} }, sessionId);
        expect({ pair: a, status: post.status, error: post.body.error?.code, result: post.body.result }).toEqual({
          pair: a,
          status: 404,
          error: -32001,
          result: undefined,
        });
        const get = await fetch(url, { method: 'GET', ...stream(tb, sessionId) });
        expect({ pair: a, status: get.status, body: await get.json() }).toMatchObject({
          pair: a,
          status: 404,
          body: { error: { code: -32001 } },
        });
        const del = await fetch(url, { method: 'DELETE', headers: handshakeHeaders(tb, sessionId) });
        expect({ pair: a, status: del.status, body: await del.json() }).toMatchObject({
          pair: a,
          status: 404,
          body: { error: { code: -32001 } },
        });

        // The owner's session is still there, with its standalone stream free.
        const mine = await rpc(url, ta, 'tools/call', { name: 'whoami', arguments: {} }, sessionId);
        expect(mine.status).toBe(200);
        expect(JSON.parse(textOf(mine.body.result)).principal).toBe(principalOf(a, metadata.issuer));
        const sse = await SseReader.open(url, { method: 'GET', ...stream(ta, sessionId) });
        open.push(sse);
        expect({ status: sse.response.status, type: sse.response.headers.get('content-type') }).toEqual({
          status: 200,
          type: 'text/event-stream',
        });
        await sse.disconnect();
        const ended = await fetch(url, { method: 'DELETE', headers: handshakeHeaders(ta, sessionId) });
        await ended.text();
        expect(ended.status).toBe(200);
        expect((await rpc(url, ta, 'ping', {}, sessionId)).status).toBe(404);

        // The same through the official SDK 1.x client: the other client's token does not reach its session.
        const client = new Client({ name: 'principals', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${ta}` } } });
        await client.connect(transport);
        expect((await rpc(url, tb, 'tools/list', {}, transport.sessionId)).status).toBe(404);
        expect((await fetch(url, { method: 'DELETE', headers: handshakeHeaders(tb, transport.sessionId) })).status).toBe(404);
        expect(JSON.parse(textOf((await client.callTool({ name: 'whoami', arguments: {} })) as Record<string, unknown>)).principal).toBe(
          principalOf(a, metadata.issuer),
        );
        await transport.terminateSession();
        await client.close();
      }
    });

    it('2024-11-05 HTTP+SSE: another client posting to a session gets 404; its owner is served on the stream', async () => {
      const origin = new URL(sessionful.url).origin;
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([sessionful.token(a), sessionful.token(b)]);
        const stream = await SseReader.open(`${origin}/sse`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${ta}` } });
        open.push(stream);
        expect(stream.response.status).toBe(200);
        await stream.waitFor((r) => r.events.length >= 1);
        expect(stream.events[0].event).toBe('endpoint');
        const endpoint = new URL(stream.events[0].data, origin);
        // Every event after the endpoint one is a JSON-RPC message.
        const messages = () => stream.events.slice(1).map((e) => JSON.parse(e.data) as Message);
        const post = async (token: string, body: unknown) => {
          const res = await fetch(endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify(body),
          });
          await res.text();
          return res.status;
        };
        const init = {
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } },
        };
        expect(await post(tb, init)).toBe(404);
        expect(await post(ta, init)).toBe(202);
        await stream.waitFor(() => messages().some((m) => m.id === 'init'));
        expect(await post(ta, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(202);
        const call = { jsonrpc: '2.0', id: 'who', method: 'tools/call', params: { name: 'whoami', arguments: {} } };
        expect(await post(tb, call)).toBe(404);
        expect(await post(ta, call)).toBe(202);
        await stream.waitFor(() => messages().some((m) => m.id === 'who'));
        const answers = messages().filter((m) => m.id === 'who');
        expect(answers).toHaveLength(1); // B's call never ran on A's stream
        expect(JSON.parse(textOf(answers[0].result)).principal).toBe(principalOf(a, metadata.issuer));
        await stream.disconnect();
      }
    });

    it('2025-11-25 tasks without sessions: another client can neither get, await, cancel nor list a task; its owner can', async () => {
      const { url } = stateless;
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([stateless.token(a), stateless.token(b)]);
        const key = `stateless-${kind}-${a}`;
        const created = await rpc(url, ta, 'tools/call', { name: 'job', arguments: { key }, task: { ttl: 60_000 } });
        expect(created.body.result?.task).toMatchObject({ taskId: expect.any(String), status: 'working' });
        const taskId = (created.body.result!.task as { taskId: string }).taskId;

        for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
          const theirs = await rpc(url, tb, method, { taskId });
          expect({ pair: a, method, error: theirs.body.error?.code, result: theirs.body.result }).toEqual({
            pair: a,
            method,
            error: -32602,
            result: undefined,
          });
        }
        const listed = await rpc(url, tb, 'tasks/list');
        expect((listed.body.result!.tasks as { taskId: string }[]).map((t) => t.taskId)).not.toContain(taskId);

        // Untouched by the other client's cancel, and the owner's.
        expect((await rpc(url, ta, 'tasks/get', { taskId })).body.result).toMatchObject({ taskId, status: 'working' });
        expect(((await rpc(url, ta, 'tasks/list')).body.result!.tasks as { taskId: string }[]).map((t) => t.taskId)).toContain(taskId);
        gate(key).resolve();
        const result = await rpc(url, ta, 'tasks/result', { taskId });
        expect(textOf(result.body.result)).toBe(`job ${key} for ${principalOf(a, metadata.issuer)}`);
      }
    });

    it('2025-11-25 tasks with sessions: the owner finds its task from another of its sessions, another client from none of its own', async () => {
      const { url } = sessionful;
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([sessionful.token(a), sessionful.token(b)]);
        const key = `sessions-${kind}-${a}`;
        const first = await openSession(url, ta);
        const created = await rpc(url, ta, 'tools/call', { name: 'job', arguments: { key }, task: { ttl: 60_000 } }, first);
        const taskId = (created.body.result!.task as { taskId: string }).taskId;
        expect(taskId).toEqual(expect.any(String));

        const theirs = await openSession(url, tb);
        for (const method of ['tasks/get', 'tasks/cancel']) {
          expect({ pair: a, method, error: (await rpc(url, tb, method, { taskId }, theirs)).body.error?.code }).toEqual({
            pair: a,
            method,
            error: -32602,
          });
        }
        expect(
          ((await rpc(url, tb, 'tasks/list', {}, theirs)).body.result!.tasks as { taskId: string }[]).map((t) => t.taskId),
        ).not.toContain(taskId);

        const second = await openSession(url, ta);
        expect((await rpc(url, ta, 'tasks/get', { taskId }, second)).body.result).toMatchObject({ taskId, status: 'working' });
        expect(((await rpc(url, ta, 'tasks/list', {}, second)).body.result!.tasks as { taskId: string }[]).map((t) => t.taskId)).toContain(
          taskId,
        );
        gate(key).resolve();
        expect(textOf((await rpc(url, ta, 'tasks/result', { taskId }, second)).body.result)).toBe(
          `job ${key} for ${principalOf(a, metadata.issuer)}`,
        );
        for (const [token, id] of [
          [ta, first],
          [tb, theirs],
          [ta, second],
        ])
          await (await fetch(url, { method: 'DELETE', headers: handshakeHeaders(token, id) })).text();
      }
    });

    it('2026-07-28 tasks extension: another client can neither get, update nor cancel a task; its owner can', async () => {
      const { url } = sessionful;
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([sessionful.token(a), sessionful.token(b)]);
        const key = `per-request-${kind}-${a}`;
        const created = await postPerRequestAs(url, ta, 'tools/call', { name: 'job', arguments: { key }, _meta: withTasks() });
        expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.any(String) });
        const taskId = created.body.result!.taskId as string;

        for (const [method, extra] of [
          ['tasks/get', {}],
          ['tasks/update', { inputResponses: { x: { action: 'decline' } } }],
          ['tasks/cancel', {}],
        ] as const) {
          const theirs = await postPerRequestAs(url, tb, method, { taskId, ...extra, _meta: withTasks() });
          expect({ pair: a, method, error: theirs.body.error?.code, result: theirs.body.result }).toEqual({
            pair: a,
            method,
            error: -32602,
            result: undefined,
          });
        }
        expect((await postPerRequestAs(url, ta, 'tasks/get', { taskId, _meta: withTasks() })).body.result).toMatchObject({
          taskId,
          status: 'working',
        });
        gate(key).resolve();
        const done = await waitFor(
          async () => {
            const now = (await postPerRequestAs(url, ta, 'tasks/get', { taskId, _meta: withTasks() })).body.result;
            return now?.status === 'completed' ? now : undefined;
          },
          { what: `task ${taskId} completed` },
        );
        expect(textOf(done.result as Record<string, unknown>)).toBe(`job ${key} for ${principalOf(a, metadata.issuer)}`);
      }
    });

    it('2026-07-28 requestState: another client replaying it is refused and nothing happens; its owner completes (raw and official 2.x client)', async () => {
      const { url } = stateless;
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([stateless.token(a), stateless.token(b)]);
        const key = `state-${kind}-${a}`;
        const mine = (e: string) => e.startsWith(`${key} by `);
        const round1 = await postPerRequestAs(url, ta, 'tools/call', { name: 'confirm', arguments: { key } });
        expect(round1.body.result).toMatchObject({
          resultType: 'input_required',
          inputRequests: { go: { method: 'elicitation/create' } },
          requestState: expect.any(String),
        });
        const retry = {
          name: 'confirm',
          arguments: { key },
          requestState: round1.body.result!.requestState,
          inputResponses: { go: { action: 'accept', content: { ok: true } } },
        };

        const replayed = await postPerRequestAs(url, tb, 'tools/call', retry);
        expect({ pair: a, error: replayed.body.error, result: replayed.body.result }).toEqual({
          pair: a,
          error: { code: -32602, message: 'Invalid params: requestState belongs to another caller' },
          result: undefined,
        });
        expect(effects.filter(mine)).toEqual([]);

        const completed = await postPerRequestAs(url, ta, 'tools/call', retry);
        expect(completed.body.result).toMatchObject({ resultType: 'complete' });
        expect(textOf(completed.body.result)).toBe(`confirmed ${key} by ${principalOf(a, metadata.issuer)}`);
        expect(effects.filter(mine)).toEqual([`${key} by ${principalOf(a, metadata.issuer)}`]);
      }

      // The official 2.x client answers the input request and retries with the requestState by itself.
      const token = await stateless.token('machine-a');
      const client = new sdk2.Client(
        { name: 'principals', version: '2.0.0' },
        {
          capabilities: { elicitation: {} },
          versionNegotiation: { mode: { pin: '2026-07-28' } },
          inputRequired: { autoFulfill: true, maxRounds: 3 },
        },
      );
      let asked = 0;
      client.setRequestHandler('elicitation/create', async () => (asked++, { action: 'accept', content: { ok: true } }));
      await client.connect(new sdk2.StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
      const key = `state-${kind}-sdk2`;
      expect(textOf(await client.callTool({ name: 'confirm', arguments: { key } }))).toBe(
        `confirmed ${key} by ${principalOf('machine-a', metadata.issuer)}`,
      );
      expect(asked).toBe(1);
      await client.close();
    });

    it("2026-07-28 subscriptions/listen: another client's stream naming a task hears nothing of it; its owner's does", async () => {
      const { app, url } = sessionful;
      for (const [a, b] of PAIRS) {
        const [ta, tb] = await Promise.all([sessionful.token(a), sessionful.token(b)]);
        const key = `listen-${kind}-${a}`;
        const created = await postPerRequestAs(url, ta, 'tools/call', { name: 'job', arguments: { key }, _meta: withTasks() });
        const taskId = created.body.result!.taskId as string;
        expect(taskId).toEqual(expect.any(String));

        const listen = (token: string, id: string) => {
          const body = {
            jsonrpc: '2.0',
            id,
            method: 'subscriptions/listen',
            params: { notifications: { taskIds: [taskId], resourceSubscriptions: [MARKER] }, _meta: withTasks() },
          };
          return listenTo(url, body, { method: 'POST', headers: perRequestHeaders(body, { authorization: `Bearer ${token}` }) });
        };
        const owners = await listen(ta, `owner-${a}`);
        const others = await listen(tb, `other-${b}`);
        for (const s of [owners, others]) {
          expect(s.response.status).toBe(200);
          await s.waitFor((r) => r.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged'));
        }
        gate(key).resolve();
        await owners.waitFor((r) =>
          (r.messages as Message[]).some((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed'),
        );
        const done = (owners.messages as Message[]).find((m) => m.method === 'notifications/tasks' && m.params?.status === 'completed')!;
        expect(done.params).toMatchObject({ taskId, result: { content: [{ text: `job ${key} for ${principalOf(a, metadata.issuer)}` }] } });

        // A change both streams hear, sent after the task's: once the other stream has it, it would have had the task's too.
        await app.notifyResourceUpdated(MARKER);
        await others.waitFor((r) => r.messages.some((m) => m.method === 'notifications/resources/updated'));
        expect((others.messages as Message[]).filter((m) => m.method === 'notifications/tasks')).toEqual([]);
        await Promise.all([owners.disconnect(), others.disconnect()]);
      }
    });
  });
});
