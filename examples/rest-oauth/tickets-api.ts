import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

/**
 * The REST API the MCP server wraps: a small ticket tracker, the stand-in for the internal or SaaS API
 * you already have. It knows nothing of MCP or OAuth; it takes one API key (`X-Api-Key`), which only
 * the MCP server holds, and records who acted from `X-Acting-User`.
 *
 *   GET  /tickets?status=open|closed    GET /tickets/:id
 *   POST /tickets {title, body}         POST /tickets/:id/close
 */
interface Ticket {
  id: number;
  title: string;
  body: string;
  status: 'open' | 'closed';
  openedBy: string;
  closedBy?: string;
}

export function ticketsApi(apiKey: string) {
  const tickets = new Map<number, Ticket>([
    [1, { id: 1, title: 'Printer on floor 2 is jammed', body: 'Again.', status: 'open', openedBy: 'ops' }],
    [2, { id: 2, title: 'Renew the TLS certificate', body: 'Expires next month.', status: 'closed', openedBy: 'ops', closedBy: 'ops' }],
  ]);
  let nextId = 3;
  const key = Buffer.from(apiKey);

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const parsed: unknown = JSON.parse(raw || '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  };

  return createServer((req, res) => {
    const given = Buffer.from(String(req.headers['x-api-key'] ?? ''));
    if (given.length !== key.length || !timingSafeEqual(given, key)) return send(res, 401, { error: 'missing or wrong API key' });
    const actor = String(req.headers['x-acting-user'] ?? 'unknown');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, collection, idText, action] = url.pathname.split('/');
    if (collection !== 'tickets') return send(res, 404, { error: 'not found' });
    const ticket = idText ? tickets.get(Number(idText)) : undefined;

    if (req.method === 'GET' && !idText) {
      const status = url.searchParams.get('status');
      return send(
        res,
        200,
        [...tickets.values()].filter((t) => !status || t.status === status),
      );
    }
    if (req.method === 'GET' && !action) return ticket ? send(res, 200, ticket) : send(res, 404, { error: `no ticket ${idText}` });
    if (req.method === 'POST' && !idText) {
      readJson(req).then(
        ({ title, body }) => {
          if (typeof title !== 'string' || !title) return send(res, 422, { error: 'title is required' });
          const created: Ticket = { id: nextId++, title, body: typeof body === 'string' ? body : '', status: 'open', openedBy: actor };
          tickets.set(created.id, created);
          send(res, 201, created);
        },
        () => send(res, 400, { error: 'the body is not JSON' }),
      );
      return;
    }
    if (req.method === 'POST' && action === 'close') {
      if (!ticket) return send(res, 404, { error: `no ticket ${idText}` });
      if (ticket.status === 'closed') return send(res, 409, { error: `ticket ${ticket.id} is already closed` });
      Object.assign(ticket, { status: 'closed', closedBy: actor });
      return send(res, 200, ticket);
    }
    send(res, 405, { error: 'method not allowed' });
  });
}
