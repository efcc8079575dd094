import { createServer, request, type Server } from 'node:http';

export interface ProxyLogEntry {
  backend: number;
  httpMethod: string;
  /** The JSON-RPC method of a POST, `response` for a client's answer, or undefined. */
  rpc?: string;
  lastEventId?: string;
  /** The backend's status, once its answer's headers came back. */
  status?: number;
}

/**
 * A plain round-robin load balancer on a loopback port: each HTTP request goes to the next backend
 * in turn, streamed back. With `resumeElsewhere`, a GET carrying Last-Event-ID goes to a backend
 * other than the one that served the previous POST, so that resumption always crosses instances.
 */
export class RoundRobinProxy {
  private next = 0;
  private server?: Server;
  resumeElsewhere = false;
  /** Sends the next request to this backend, whatever the rotation says. */
  pinNext?: number;
  readonly log: ProxyLogEntry[] = [];

  constructor(private readonly backends: number[]) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const lastEventId = req.headers['last-event-id'] as string | undefined;
        let backend = this.next++ % this.backends.length;
        if (this.pinNext !== undefined) {
          backend = this.pinNext;
          this.pinNext = undefined;
        }
        if (this.resumeElsewhere && lastEventId) {
          const lastPost = [...this.log].reverse().find((e) => e.httpMethod === 'POST');
          if (lastPost && lastPost.backend === backend) backend = (backend + 1) % this.backends.length;
        }
        const entry: ProxyLogEntry = { backend, httpMethod: req.method ?? '', rpc: rpcOf(body), lastEventId };
        this.log.push(entry);
        const port = this.backends[backend];
        const upstream = request(
          { host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${port}` } },
          (answer) => {
            entry.status = answer.statusCode;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
        res.on('close', () => upstream.destroy());
        upstream.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/mcp`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

function rpcOf(body: Buffer): string | undefined {
  if (body.length === 0) return undefined;
  try {
    const m = JSON.parse(body.toString()) as { method?: string; params?: { name?: string }; result?: unknown; error?: unknown };
    if (m.method) return m.method === 'tools/call' ? `tools/call:${m.params?.name}` : m.method;
    return 'result' in m || 'error' in m ? 'response' : undefined;
  } catch {
    return undefined;
  }
}
