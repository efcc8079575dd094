import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A Koa middleware, typed structurally so that mcpkit's declarations need no `@types/koa`:
 * it fits `koaApp.use(...)`.
 */
export type HttpMiddleware = (context: object, next: () => Promise<unknown>) => Promise<unknown>;

/** A Node request listener (`http.createServer(listener)`, supertest). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * What `httpTransport(app, options)` returns (mcpkit/http): the Streamable HTTP endpoint of an
 * application, to mount in your own Koa app or Node server (`app.listen(httpServer(options))` serves it
 * on a server of its own). The application closes it with itself.
 */
export interface HttpTransport {
  /** A Koa middleware serving the MCP endpoint (and health paths); mount it in your own Koa app. */
  middleware(): HttpMiddleware;
  /** A Node request listener (for http.createServer or supertest). */
  callback(): RequestListener;
  /** Sessions served here, HTTP+SSE ones included. */
  readonly sessionCount: number;
  /** Stops accepting, ends every stream and session, and closes the server. */
  close(): Promise<void>;
}

/**
 * What `fetchHandler(app, options)` returns (mcpkit/fetch): the MCP endpoint as a web-standard fetch handler,
 * `(request) => Promise<Response>`, for Bun (`Bun.serve({ fetch })`), Deno (`Deno.serve(handler)`),
 * Cloudflare Workers (`export default { fetch }`), AWS Lambda (`lambdaHandler`) and route handlers.
 * It answers any path: those that are not the endpoint's get 404. The application closes it with itself.
 */
export interface FetchHandler {
  /**
   * Serves one request. The second argument is what the runtime passes beside it, read for the
   * caller's address when it has one (Deno's `info.remoteAddr`, Bun's `server.requestIP`).
   */
  (request: Request, runtime?: unknown): Promise<Response>;
  /** Sessions served here, HTTP+SSE ones included. */
  readonly sessionCount: number;
  /** Answers new requests with 503; requests in flight go on (the application does this first when it closes). */
  stopAccepting(): void;
  /** Answers new requests with 503, ends every stream and session. */
  close(): Promise<void>;
}

/**
 * An AWS Lambda event with the HTTP payload format 2.0: API Gateway HTTP APIs and Lambda function URLs
 * (the fields mcpkit reads).
 */
export interface LambdaHttpEvent {
  readonly version?: string;
  readonly rawPath: string;
  readonly rawQueryString?: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly cookies?: readonly string[];
  readonly requestContext: {
    readonly domainName?: string;
    readonly http: { readonly method: string; readonly sourceIp?: string; readonly protocol?: string };
  };
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
}

/** What a Lambda function returns for an HTTP payload 2.0 event. */
export interface LambdaHttpResult {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

/** What `lambdaHandler(app, options)` returns (mcpkit/fetch): export it as the function's handler. */
export type LambdaHandler = (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult>;
