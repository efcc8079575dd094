import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
} from '../mcp/mcp-types';
import type { RequestId } from '../mcp/json-rpc';
import type { Extensions } from '../mcp/extensions';

/** What a handler knows about the client session it serves. */
export interface SessionInfo {
  /** The session id (HTTP) or undefined (stdio, stateless). */
  readonly id?: string;
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
  readonly clientCapabilities: ClientCapabilities;
}

/**
 * Who is calling, as verified by the transport (a bearer token's verifier, or your `authenticate`
 * hook). The token itself is never kept here: mcpkit does not pass tokens through.
 */
export interface AuthInfo {
  /**
   * Who owns what this caller creates (sessions, SSE streams, tasks, `requestState`, subscriptions):
   * set by mcpkit on every authenticated caller, from the subject, else the client id, qualified by the
   * issuer (see "Who owns what" in docs/guide/authorization.md). A verifier may set its own; it must be unique per caller.
   */
  readonly principal?: string;
  /** The user or machine the credentials were issued to (a token's `sub`), when they name one. */
  readonly subject?: string;
  /** The authorization server that issued the credentials (a token's `iss`). */
  readonly issuer?: string;
  /** The OAuth client the token was issued to (`client_id` / `azp`). */
  readonly clientId?: string;
  /** Granted scopes (empty when none). */
  readonly scopes?: readonly string[];
  /** The verified claims of the token (JWT payload or introspection response). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** When the credentials expire, in seconds since the epoch. */
  readonly expiresAt?: number;
  readonly [key: string]: unknown;
}

/** Sends `notifications/message` to the client at or above the level the client chose. */
export interface McpLogger {
  debug(data: unknown, logger?: string): Promise<void>;
  info(data: unknown, logger?: string): Promise<void>;
  notice(data: unknown, logger?: string): Promise<void>;
  warning(data: unknown, logger?: string): Promise<void>;
  error(data: unknown, logger?: string): Promise<void>;
  critical(data: unknown, logger?: string): Promise<void>;
  alert(data: unknown, logger?: string): Promise<void>;
  emergency(data: unknown, logger?: string): Promise<void>;
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
}

/** Parameters of a form-mode elicitation, with the form given as a JSON Schema. */
export interface ElicitFormRequest {
  mode?: 'form';
  message: string;
  requestedSchema: Record<string, unknown>;
}

/** The answer to a form built from a class: on `accept`, `content` is a validated instance of it. */
export interface ElicitFormResult<T> {
  action: 'accept' | 'decline' | 'cancel';
  content?: T;
}

/** Parameters of a URL-mode elicitation. */
export interface ElicitUrlRequest {
  mode: 'url';
  message: string;
  url: string;
  elicitationId: string;
}

/** Options of a request to the client. */
export interface ClientRequestOptions {
  /** Milliseconds to wait for the client's answer (default: the application's `clientRequestTimeoutMs`). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * 2026-07-28 clients: the key of this request in the InputRequiredResult, under which the client
   * answers (default `elicitation-0`, `sampling-1`… numbered by call order). Give stable keys when
   * the handler's requests depend on earlier answers.
   */
  key?: string;
  /**
   * A 2026-07-28 tools/call that may become a task (the tasks extension): ask within the call itself,
   * by multi round-trip (the client retries the call with the answer), before the task is created.
   * Without it, a request made before the task exists creates the task at once and waits in it
   * (`input_required`, answered by tasks/update). Ignored once the task exists, and elsewhere.
   */
  beforeTask?: boolean;
}

/**
 * The context handed to every tool, resource, prompt and completion handler. Declared as an abstract
 * class so that mcpkit can recognise a parameter of this type from decorator metadata.
 */
export abstract class McpContext {
  /** The JSON-RPC id of the request being served. @group The request */
  abstract readonly requestId: RequestId;
  /** Aborted when the client cancels the request or the application closes. @group The request */
  abstract readonly signal: AbortSignal;
  /** Who is calling: the session id, protocol version, client info and the capabilities the client declared. @group The request */
  abstract readonly session: SessionInfo;
  /** The request's `_meta`, as sent by the client. @group The request */
  abstract readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The HTTP request headers, when the request arrived over HTTP. @group The request */
  abstract readonly headers: Readonly<Record<string, string | string[] | undefined>> | undefined;
  /** The verified caller, or undefined when the request was not authenticated. @group The request */
  abstract readonly auth: AuthInfo | undefined;
  /**
   * The address the HTTP request came from: the connection's peer (a proxy's, behind one; its
   * X-Forwarded-For is in `headers`). Undefined over stdio and in process. @group The request
   */
  get clientAddress(): string | undefined {
    return undefined;
  }
  /** Client-facing logging (`notifications/message`). @group Reporting */
  abstract readonly log: McpLogger;
  /**
   * The extensions the client declared, identifier to settings: from its initialize capabilities in a
   * handshake session, from the request's `_meta` client capabilities in the 2026-07-28 era. @group The request
   */
  abstract readonly extensions: Extensions;

  /** True when the client declared the extension `id` (fall back to core behaviour otherwise). @group The request */
  abstract supportsExtension(id: string): boolean;

  /**
   * Reports progress when the client asked for it (a `progressToken`); otherwise does nothing.
   * Values that do not increase are dropped, as the protocol requires progress to grow. @group Reporting
   */
  abstract progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Asks the user, through the client, for structured input (`elicitation/create`). A client that did not declare
   * `elicitation` (in that mode) is sent nothing: this rejects with McpError -32600 (-32021 in the 2026-07-28 era),
   * which fails the call unless caught. Check `session.clientCapabilities.elicitation` first to do without.
   * @group Asking the client
   */
  abstract elicit(request: ElicitFormRequest | ElicitUrlRequest, options?: ClientRequestOptions): Promise<ElicitResult>;
  /**
   * Asks the user to fill a form derived from a class-validator class (a flat object of strings,
   * numbers, booleans and enums); an accepted answer is validated into an instance of the class
   * (invalid answers fail with -32602). @group Asking the client
   */
  abstract elicitForm<T extends object>(message: string, form: new () => T, options?: ClientRequestOptions): Promise<ElicitFormResult<T>>;
  /** Tells the client that the URL-mode elicitation `elicitationId` finished (`notifications/elicitation/complete`). @group Asking the client */
  abstract completeElicitation(elicitationId: string): Promise<void>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`); rejects like `elicit` when the client did
   * not declare `sampling` (check `session.clientCapabilities.sampling` first). @group Asking the client
   */
  abstract sample(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult>;
  /**
   * Lists the client's roots (`roots/list`); rejects like `elicit` when the client did not declare `roots` (check
   * `session.clientCapabilities.roots` first). @group Asking the client
   */
  abstract roots(options?: ClientRequestOptions): Promise<Root[]>;
  /**
   * Computes a value once per request, even across the rounds of a 2026-07-28 multi round-trip
   * request (where the handler re-runs from the start after each answer from the client): the value
   * travels, sealed, in the request's requestState. Use it for work that must not happen twice
   * (creating an order before asking for confirmation). Values must be JSON. Outside a multi
   * round-trip request it simply calls `compute`. @group Rounds and streams
   */
  abstract once<T>(key: string, compute: () => T | Promise<T>): Promise<T>;
  /**
   * Over Streamable HTTP, closes the connection that carries this request's SSE stream without ending
   * the stream: the client reconnects with Last-Event-ID and receives what followed (SEP-1699
   * polling). Does nothing on other transports. @group Rounds and streams
   */
  abstract closeStream(): void;
}

/** The context of a completion handler: the usual context plus the arguments already resolved. */
export abstract class CompletionContext extends McpContext {
  abstract readonly arguments: Readonly<Record<string, string>>;
}
