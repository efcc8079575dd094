import request from 'supertest';
import { ACCEPT_BOTH, httpApp, initializeBody, listeningHttpApp, parseSse } from '../../helpers/http-app';
import { SseReader } from '../../helpers/sse-client';
import { waitFor } from '../../helpers/wait-for';
import { internalsOf } from '../../../src/kernel/mcp-application';

/** SSE streams over a real loopback socket (port 0): standalone stream, resumption, keep-alive, shutdown. */
describe('Streamable HTTP streams', () => {
  async function start(options: Parameters<typeof httpApp>[0] = {}) {
    const env = await listeningHttpApp({ keepAliveMs: 0, ...options });
    return { ...env, ...(await session(env.url)), session: () => session(env.url) };
  }

  async function session(url: string) {
    const init = await fetch(url, {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify(initializeBody()),
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.json();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const post = (body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { ...headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const get = (extra: Record<string, string> = {}) =>
      SseReader.open(url, { headers: { ...headers, accept: 'text/event-stream', ...extra } });
    return { sessionId, headers, post, get };
  }

  it('opens one standalone GET stream per session (409 for a second) with a priming event', async () => {
    const s = await start();
    const stream = await s.get();
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    await stream.waitFor((r) => r.events.length >= 1);
    expect(stream.events[0]).toMatchObject({ data: '', retry: 1000 });
    const second = await fetch(s.url, { headers: { ...s.headers, accept: 'text/event-stream' } });
    expect(second.status).toBe(409);
    await stream.disconnect();
    await s.app.close();
  });

  it('sends messages that belong to no request on the standalone stream', async () => {
    const s = await start();
    const stream = await s.get();
    await stream.waitFor((r) => r.events.length >= 1);
    s.app.disable('tool', 'quick');
    await stream.waitFor((r) => r.messages.length >= 1);
    expect(stream.messages[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await stream.disconnect();
    await s.app.close();
  });

  it('replays what the standalone stream missed after Last-Event-ID, exactly once, then carries on live', async () => {
    const s = await start();
    const first = await s.get();
    await first.waitFor((r) => r.events.length >= 1);
    s.app.disable('tool', 'quick');
    await first.waitFor((r) => r.messages.length >= 1);
    const lastSeen = first.events[first.events.length - 1].id!;
    await first.disconnect();
    // Another session listens: list changes go to every session at once, so once it has heard both,
    // the first session has been sent them too, while nobody was listening to it.
    const observer = await (await s.session()).get();
    await observer.waitFor((r) => r.events.length >= 1);

    // Sent while nobody listens: stored, not lost.
    s.app.enable('tool', 'quick');
    await observer.waitFor((r) => r.messages.length >= 1);
    s.app.disable('resource', 'test://r');
    await observer.waitFor((r) => r.messages.length >= 2);
    await observer.disconnect();

    const resumed = await s.get({ 'last-event-id': lastSeen });
    expect(resumed.response.status).toBe(200);
    await resumed.waitFor((r) => r.messages.length >= 2);
    expect(resumed.messages.map((m) => m.method)).toEqual(['notifications/tools/list_changed', 'notifications/resources/list_changed']);
    s.app.disable('tool', 'slow');
    await resumed.waitFor((r) => r.messages.length >= 3);
    expect(resumed.messages.map((m) => m.method)).toHaveLength(3);
    const ids = resumed.events.map((e) => e.id);
    expect(ids.every((id) => id !== lastSeen)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    await resumed.disconnect();
    await s.app.close();
  });

  it('answers JSON when nothing streams, and replays a finished POST stream from its priming event', async () => {
    const s = await start();
    const res = await s.post({ jsonrpc: '2.0', id: 'poll', method: 'tools/call', params: { name: 'slow', arguments: { ms: 10 } } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/); // nothing sent first: plain JSON
    await res.json();

    const streamed = await SseReader.open(s.url, {
      method: 'POST',
      headers: { ...s.headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'chat', method: 'tools/call', params: { name: 'chatty', arguments: {} } }),
    });
    await streamed.finished();
    const priming = streamed.events[0].id!;
    expect(streamed.messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 'chat']);
    // Replaying a finished stream from its priming event yields the same messages, then ends.
    const replay = await s.get({ 'last-event-id': priming });
    await replay.finished();
    expect(replay.messages).toEqual(streamed.messages);
    await s.app.close();
  });

  it('never replays across sessions: a foreign Last-Event-ID is refused', async () => {
    const a = await start();
    const stream = await a.get();
    await stream.waitFor((r) => r.events.length >= 1);
    const idOfA = stream.events[0].id!;
    const init = await fetch(a.url, {
      method: 'POST',
      headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify(initializeBody()),
    });
    const otherSession = init.headers.get('mcp-session-id')!;
    const res = await fetch(a.url, { headers: { 'mcp-session-id': otherSession, accept: 'text/event-stream', 'last-event-id': idOfA } });
    expect(res.status).toBe(400);
    await stream.disconnect();
    await a.app.close();
  });

  it('writes keep-alive comments on idle streams', async () => {
    const s = await start({ keepAliveMs: 30 });
    const stream = await s.get();
    await stream.waitFor((r) => r.comments >= 2);
    await stream.disconnect();
    await s.app.close();
  });

  it('closes sessions idle past sessionIdleTimeoutMs', async () => {
    const env = await httpApp({ sessionIdleTimeoutMs: 200 });
    const init = await request(env.callback).post('/mcp').set('accept', ACCEPT_BOTH).send(initializeBody());
    const sessionId = init.headers['mcp-session-id'];
    expect(env.transport.sessionCount).toBe(1);
    await waitFor(() => env.transport.sessionCount === 0, { what: 'the idle session to be closed' });
    const ping = await request(env.callback)
      .post('/mcp')
      .set({ accept: ACCEPT_BOTH, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' })
      .send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(ping.status).toBe(404);
    await env.app.close();
  });

  it('refuses a request whose id is in flight in the session, on its own answer, and the first keeps its stream', async () => {
    const s = await start();
    try {
      const first = s.post({ jsonrpc: '2.0', id: 'twice', method: 'tools/call', params: { name: 'heldThenLogs', arguments: {} } });
      await s.tools.heldStarted.promise;
      const again = await s.post({ jsonrpc: '2.0', id: 'twice', method: 'ping' });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({
        jsonrpc: '2.0',
        id: 'twice',
        error: { code: -32600, message: 'Request id "twice" is already in use' },
      });
      s.tools.release.resolve();
      // The first request's log message and answer travel on its own stream.
      const answer = await first;
      expect(answer.headers.get('content-type')).toBe('text/event-stream');
      const messages = parseSse(await answer.text())
        .filter((e) => e.data)
        .map((e) => JSON.parse(e.data) as Record<string, unknown>);
      expect(messages).toEqual([
        expect.objectContaining({ method: 'notifications/message', params: expect.objectContaining({ data: 'released' }) }),
        { jsonrpc: '2.0', id: 'twice', result: { content: [{ type: 'text', text: 'logged' }] } },
      ]);
    } finally {
      s.tools.release.resolve();
      await s.app.close();
    }
  });

  it('does not treat a dropped connection as a cancellation', async () => {
    const s = await start();
    const controller = new AbortController();
    const pending = fetch(s.url, {
      method: 'POST',
      signal: controller.signal,
      headers: { ...s.headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'dropped', method: 'tools/call', params: { name: 'held', arguments: {} } }),
    }).catch(() => undefined);
    await s.tools.heldStarted.promise;
    controller.abort();
    await pending;
    const sessions = internalsOf(s.app).engine;
    expect(sessions.inflightCount).toBe(1);
    s.tools.release.resolve();
    await waitFor(() => sessions.inflightCount === 0, { what: 'the request to finish' });
    await s.app.close();
  });

  it('shuts down gracefully: requests in flight are answered, streams end, new requests are refused', async () => {
    const s = await start();
    const stream = await s.get();
    await stream.waitFor((r) => r.events.length >= 1);
    const inflight = s.post({ jsonrpc: '2.0', id: 'last', method: 'tools/call', params: { name: 'held', arguments: {} } });
    await s.tools.heldStarted.promise;
    const closing = s.app.close();
    setImmediate(() => s.tools.release.resolve());
    const answer = await (await inflight).json();
    expect(answer).toEqual({ jsonrpc: '2.0', id: 'last', result: { content: [{ type: 'text', text: 'released' }] } });
    await closing;
    await stream.finished();
    expect(stream.ended).toBe(true);
    await expect(
      fetch(s.url, {
        method: 'POST',
        headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
        body: JSON.stringify(initializeBody()),
      }),
    ).rejects.toThrow();
  });
});
