import { FORBIDDEN_CODE, type ForbiddenOptions } from '../../auth/auth.errors';
import type { AuthInfo } from '../../context/mcp-context';
import {
  ErrorCode,
  errorResponse,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import { withLogFields } from '../../observability/log-context';
import type { PeerState } from '../../protocol/peer';
import { idInUse } from '../../protocol/server-session';
import type { NetworkFacts } from '../../observability/telemetry-options';
import type { TransportExtra } from '../../protocol/request-scope';
import type { HttpExchange } from './http-exchange';
import { replyJson, replyMessage } from './http-replies';
import type { StreamChannel } from './stream-channel';

/** Where a POSTed request is served and its stream lives: a session (HttpSession), or a stateless request's own (StatelessExchange). */
export interface AnswerTarget {
  /** The session id (a header of the answer, a field of the log); undefined without a session. */
  readonly id: string | undefined;
  /** Runs the request; resolves to its response, or undefined when it was cancelled. */
  serve(request: JsonRpcRequest, extra: TransportExtra): Promise<JsonRpcMessage | undefined>;
  /**
   * Holds the request's answer open on `exchange`: the first message for the request sent before its
   * response turns the answer into the request's SSE stream, and `streaming` is called then. False, and
   * nothing held, when the answer of another request with this id is still open here.
   */
  pend(id: RequestId, exchange: HttpExchange, streaming: () => void): boolean;
  /** The request's stream: the one it has, or one opened now on its pending answer; undefined once answered. */
  openStream(id: RequestId): StreamChannel | undefined;
  /** The request's stream if one was opened (nothing is opened). */
  streamOf(id: RequestId): StreamChannel | undefined;
  /** The request's answer is over: a JSON reply went out, or its stream ended. */
  settle(id: RequestId): void;
  /** Told when the request's stream ended after its answer (a session's activity). */
  streamEnded?(): void;
}

/** A refusal's RFC 9470 step-up, as ForbiddenError carries it in its data. */
type StepUp = ForbiddenOptions['stepUp'];

export interface AnswerOptions {
  readonly responseMode: 'auto' | 'json' | 'sse';
  readonly logError: (message: string, error?: unknown) => void;
  /** Runs after the handler and before the answer goes out (a new shared session is saved there). */
  readonly beforeReply?: () => Promise<void>;
  /** Called when `beforeReply` failed: the session does not exist, and the client is told why. */
  readonly onBeforeReplyFailed?: () => void;
  /** The status and `WWW-Authenticate` of a refusal (a ForbiddenError) answered as plain JSON, for the request's `auth`. */
  readonly refusal: (
    auth: AuthInfo | undefined,
    requiredScopes: readonly string[],
    description: string,
    stepUp?: StepUp,
  ) => { status: 401 | 403; challenge?: string };
  /** The HTTP status of an error answered as plain JSON (per-request-era requests: 404 for -32601, 400 for -32020..-32022). */
  readonly statusOf?: (code: number) => number;
}

/**
 * Answers one POSTed request: JSON when nothing else was sent first, else an SSE stream, opened by the
 * first message (see AnswerTarget.pend): a request that sends nothing makes no stream. Resolves once the
 * HTTP answer has started, with a promise of the request being completely answered. That promise never
 * rejects: a fault ends the request with a JSON-RPC error (see StreamChannel) and is logged.
 *
 * `options` should be made once per handler, not per request, and hold nothing of a request (a closure
 * over its ctx or `extra`): V8 may pretenure an object literal made on every request (allocate it in old
 * space, after its objects survived GCs while the process warmed up); such an object, dead once its
 * request is answered, still keeps what it references alive through every scavenge until the next full
 * GC, and a closure over the request drags the whole request (ctx, req, res, stream) into old space.
 */
export async function answerRequest(
  exchange: HttpExchange,
  http: AnswerTarget,
  request: JsonRpcRequest,
  extra: PostExtra,
  options: AnswerOptions,
): Promise<{ finished: Promise<void> }> {
  if (http.id) exchange.setHeader('Mcp-Session-Id', http.id);
  // Entries of the server log made while the request runs carry its id, method and session.
  const fields = { requestId: request.id, method: request.method, sessionId: http.id };
  if (options.responseMode === 'json') {
    // Never a stream: what the handler sends before its response goes to the session's standalone stream.
    replyAnswer(exchange, await withLogFields(fields, () => serve(exchange, http, request, extra, options)), options, extra.auth);
    return ANSWERED;
  }
  let wake!: () => void;
  const started = new Promise<void>((resolve) => (wake = resolve));
  if (!http.pend(request.id, exchange, wake)) {
    // Another request's answer with this id is still open here (its handler may have just finished): refused, on
    // its own answer, so that neither request's messages reach the other's stream.
    replyJson(exchange, idInUse(request.id));
    return ANSWERED;
  }
  extra.answeredBy(http, request.id);
  if (options.responseMode === 'sse') http.openStream(request.id);
  const done = withLogFields(fields, () => serve(exchange, http, request, extra, options)); // never rejects
  void done.then(wake);
  await started;
  const channel = http.streamOf(request.id);
  if (!channel) {
    // Answered before anything else was sent: plain JSON.
    http.settle(request.id);
    replyAnswer(exchange, await done, options, extra.auth);
    return ANSWERED;
  }
  const finished = done.then(async (response) => {
    await channel.finish(response);
    http.settle(request.id);
    http.streamEnded?.();
  });
  return { finished };
}

/**
 * The TransportExtra of a POSTed request: `closeStream` ends the HTTP connection of the request's stream
 * (opening it first when the answer is still pending), once answerRequest says where it lives. It ends
 * up referencing the whole request (its answer's target), so it is made with `new`, not as an object literal: V8 pretenures only literals (see answerRequest), and
 * a pretenured one would keep every request's ctx, req and res alive into old space.
 */
export class PostExtra implements TransportExtra {
  envelope?: PeerState;
  private facts?: NetworkFacts;
  private target?: AnswerTarget;
  private requestId?: RequestId;

  constructor(
    readonly headers: TransportExtra['headers'],
    readonly auth: AuthInfo | undefined,
    private readonly exchange: HttpExchange,
  ) {}

  answeredBy(target: AnswerTarget, id: RequestId): void {
    this.target = target;
    this.requestId = id;
  }

  /** Ends the HTTP connection of the request's stream (SEP-1699 polling): the client resumes it. */
  closeStream(): void {
    // Channel work never rejects (a fault breaks the stream and is logged there).
    if (this.target) void this.target.openStream(this.requestId!)?.closeConnection();
  }

  /** Read when asked (telemetry's span attributes only): the peer's address and port are getters of the socket. */
  get network(): NetworkFacts {
    return (this.facts ??= this.exchange.network);
  }
}

/** What answerRequest gives back once the answer went out whole: nothing is left to finish. */
const ANSWERED: { finished: Promise<void> } = Object.freeze({ finished: Promise.resolve() });

/**
 * Runs the request, then `beforeReply` (a new shared session saved): the response, or the error that
 * takes its place when `beforeReply` failed. Never rejects: a fault is an internal error response (logged).
 */
async function serve(
  exchange: HttpExchange,
  http: AnswerTarget,
  request: JsonRpcRequest,
  extra: TransportExtra,
  options: AnswerOptions,
): Promise<JsonRpcMessage | undefined> {
  let response: JsonRpcMessage | undefined;
  try {
    response = await http.serve(request, extra);
  } catch (error) {
    options.logError(`Unhandled error answering ${request.method}`, error);
    return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
  }
  try {
    await options.beforeReply?.();
  } catch (error) {
    options.onBeforeReplyFailed?.();
    exchange.removeHeader('Mcp-Session-Id');
    const e = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
    return errorResponse(request.id, e.code, e.message);
  }
  return response;
}

/**
 * A rate-limited refusal (-32023) answered as plain JSON is an HTTP 429, with `Retry-After` in whole
 * seconds (rounded up) and the budget in `RateLimit-Limit` and `RateLimit-Remaining` where disclosed.
 */
function replyRateLimited(exchange: HttpExchange, response: JsonRpcErrorResponse): void {
  const data = (response.error.data ?? {}) as { retryAfterMs?: unknown; limit?: unknown; remaining?: unknown };
  if (typeof data.retryAfterMs === 'number') exchange.setHeader('Retry-After', String(Math.ceil(data.retryAfterMs / 1000)));
  if (typeof data.limit === 'number') exchange.setHeader('RateLimit-Limit', String(data.limit));
  if (typeof data.remaining === 'number') exchange.setHeader('RateLimit-Remaining', String(data.remaining));
  replyMessage(exchange, 429, response);
}

/**
 * The answer as plain JSON, except that a refusal for lack of authorization (FORBIDDEN_CODE) is an
 * HTTP 401 or 403 (see RequestGuards.refusal), so that the client can authorize or step up its
 * scopes. Once the answer became a stream, the same refusal can only be the JSON-RPC error it already is.
 */
function replyAnswer(
  exchange: HttpExchange,
  response: JsonRpcMessage | undefined,
  options: AnswerOptions,
  auth: AuthInfo | undefined,
): void {
  if (response && 'error' in response && response.error.code === ErrorCode.RateLimited) return replyRateLimited(exchange, response);
  if (response && 'error' in response && options.statusOf && response.error.code !== FORBIDDEN_CODE) {
    return replyMessage(exchange, options.statusOf(response.error.code), response);
  }
  if (!response || !('error' in response) || response.error.code !== FORBIDDEN_CODE) return replyJson(exchange, response);
  const data = response.error.data as { requiredScopes?: unknown; stepUp?: unknown } | undefined;
  const scopes = Array.isArray(data?.requiredScopes) ? data.requiredScopes.filter((s): s is string => typeof s === 'string') : [];
  const refusal = options.refusal(auth, scopes, response.error.message, stepUpOf(data?.stepUp));
  if (refusal.challenge) exchange.setHeader('WWW-Authenticate', refusal.challenge);
  replyMessage(exchange, refusal.status, response);
}

/**
 * The step-up a refusal asks for, read from its data: a McpError with FORBIDDEN_CODE can be made by
 * hand, so members of the wrong type are left out of the challenge rather than break it.
 */
function stepUpOf(value: unknown): StepUp {
  if (typeof value !== 'object' || value === null) return undefined;
  const { acrValues, maxAge } = value as Record<string, unknown>;
  return {
    ...(Array.isArray(acrValues) ? { acrValues: acrValues.filter((v): v is string => typeof v === 'string') } : {}),
    ...(Number.isSafeInteger(maxAge) && (maxAge as number) >= 0 ? { maxAge: maxAge as number } : {}),
  };
}
