import { connect } from 'node:net';
import request from 'supertest';
import { type EventStore, InMemoryEventStore } from '../../../src/stores';
import { ACCEPT_BOTH, httpApp, initializeBody, listeningHttpApp } from '../../helpers/http-app';

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** Sends raw bytes and resolves with everything the server wrote before closing (or `waitMs` of silence). */
function rawExchange(port: number, chunks: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += d.toString();
      // The whole answer (headers and its JSON body) is in: no need to wait for the close.
      if (/\r\n\r\n[\s\S]*\}$/.test(received)) socket.destroy();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    for (const chunk of chunks) socket.write(chunk);
  });
}

describe('Streamable HTTP details', () => {
  it('echoes the request id in errors answered after the body was read', async () => {
    const env = await httpApp({ maxSessions: 1 });
    try {
      await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
      const full = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody('second'));
      expect(full.status).toBe(503);
      expect(full.body).toMatchObject({ jsonrpc: '2.0', id: 'second', error: { code: -32000 } });
      const missing = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(ping(7));
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });
      const unknown = await request(env.callback)
        .post('/mcp')
        .set({ Accept: ACCEPT_BOTH, 'Mcp-Session-Id': 'f'.repeat(32) })
        .send(ping(8));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32001, message: 'Session not found' } });
      // A notification has no id to echo.
      const note = await request(env.callback)
        .post('/mcp')
        .set({ Accept: ACCEPT_BOTH, 'Mcp-Session-Id': 'f'.repeat(32) })
        .send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(note.body).toMatchObject({ id: null, error: { code: -32001 } });
    } finally {
      await env.app.close();
    }
  });

  it('applies the Host guard to /health', async () => {
    const env = await httpApp();
    try {
      const foreign = await request(env.callback).get('/health').set('Host', 'evil.example.com');
      expect(foreign.status).toBe(403);
      expect(foreign.text).not.toMatch(/sessions/);
      const local = await request(env.callback).get('/health').set('Host', 'localhost');
      expect(local.status).toBe(200);
      expect(local.body).toMatchObject({ status: 'ok' });
    } finally {
      await env.app.close();
    }
  });

  it('answers a request that stops arriving within requestTimeoutMs with 408, closes its connection, and keeps serving', async () => {
    const env = await listeningHttpApp({ requestTimeoutMs: 200 });
    const { port } = env;
    try {
      const body = JSON.stringify(initializeBody());
      const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: ${ACCEPT_BOTH}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const answer = await rawExchange(port, [head, body.slice(0, 10)]);
      // Node's server answers it (the rest of the body may still come) and closes the connection.
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      const after = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json' },
        body,
      });
      expect(after.status).toBe(200);
    } finally {
      await env.app.close();
    }
  });

  it('accepts any loopback Origin on any port when bound to loopback (the MCP Inspector), and refuses foreign ones', async () => {
    const env = await listeningHttpApp();
    const { url } = env;
    try {
      const post = (origin: string) =>
        fetch(url, {
          method: 'POST',
          headers: { accept: ACCEPT_BOTH, 'content-type': 'application/json', origin },
          body: JSON.stringify(initializeBody()),
        });
      for (const origin of ['http://localhost:6274', 'http://127.0.0.1:6274', 'http://[::1]:6274', 'https://localhost']) {
        const res = await post(origin);
        expect({ origin, status: res.status }).toEqual({ origin, status: 200 });
        await res.text();
      }
      for (const origin of ['http://evil.example:6274', 'http://localhost.evil.example', 'null', 'file://localhost']) {
        const res = await post(origin);
        expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
        expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Origin') } });
      }
    } finally {
      await env.app.close();
    }
  });

  it('answers a fault of the event store on resume with a JSON-RPC error, never a text page', async () => {
    const store: EventStore = Object.assign(new InMemoryEventStore(), {
      eventsAfter: async () => {
        throw new Error('store offline');
      },
    });
    const env = await httpApp({ eventStore: store });
    try {
      const init = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
      const res = await request(env.callback)
        .get('/mcp')
        .set({ Accept: 'text/event-stream', 'Mcp-Session-Id': init.headers['mcp-session-id'], 'Last-Event-ID': 'r1.1' });
      expect(res.status).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
    } finally {
      await env.app.close();
    }
  });

  it('answers DELETE with an empty body, not a status text', async () => {
    const env = await httpApp();
    try {
      const init = await request(env.callback).post('/mcp').set('Accept', ACCEPT_BOTH).send(initializeBody());
      const res = await request(env.callback).delete('/mcp').set('Mcp-Session-Id', init.headers['mcp-session-id']);
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
    } finally {
      await env.app.close();
    }
  });
});
