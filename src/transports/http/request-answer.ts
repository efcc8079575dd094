import { ErrorCode, errorResponse, JsonRpcMessage, JsonRpcRequest } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import type { TransportExtra } from '../../protocol/request-scope';
import { Ctx, replyJson } from './http-replies';
import type { HttpSession } from './http-session';

export interface AnswerOptions {
  readonly responseMode: 'auto' | 'json' | 'sse';
  readonly logError: (message: string, error?: unknown) => void;
  /** Runs after the handler and before the answer goes out (a new shared session is saved there). */
  readonly beforeReply?: () => Promise<void>;
  /** Called when `beforeReply` failed: the session does not exist, and the client is told why. */
  readonly onBeforeReplyFailed?: () => void;
}

/**
 * Answers one POSTed request: JSON when nothing else was sent first, else an SSE stream. Resolves once
 * the HTTP answer has started, with a promise of the request being completely answered. That promise
 * never rejects: a fault ends the request with a JSON-RPC error (see StreamChannel) and is logged.
 */
export async function answerRequest(ctx: Ctx, http: HttpSession, request: JsonRpcRequest, extra: TransportExtra, options: AnswerOptions): Promise<{ finished: Promise<void> }> {
  if (http.id) ctx.set('Mcp-Session-Id', http.id);
  const handle = async (): Promise<JsonRpcMessage | undefined> => {
    let response: JsonRpcMessage | undefined;
    try {
      response = await http.session.handleRequest(request, extra);
    } catch (error) {
      options.logError(`Unhandled error answering ${request.method}`, error);
      return errorResponse(request.id, ErrorCode.InternalError, 'Internal error');
    }
    try {
      await options.beforeReply?.();
    } catch (error) {
      options.onBeforeReplyFailed?.();
      ctx.remove('Mcp-Session-Id');
      const e = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
      return errorResponse(request.id, e.code, e.message);
    }
    return response;
  };
  if (options.responseMode === 'json') {
    replyJson(ctx, await handle());
    return { finished: Promise.resolve() };
  }
  const channel = http.openRequest(request.id, ctx.res);
  // Channel work never rejects (a fault breaks the stream and is logged there): nothing to await.
  extra.closeStream = () => void channel.closeConnection();
  if (options.responseMode === 'sse') void channel.startStream();
  const done = handle(); // never rejects: every fault becomes an error response above
  const first = await Promise.race([done.then((response) => ({ response })), channel.upgrade.then(() => undefined)]);
  if (first && channel.state === 'pending') {
    http.closeRequest(request.id, channel);
    replyJson(ctx, first.response);
    return { finished: Promise.resolve() };
  }
  ctx.respond = false;
  const finished = done.then(async (response) => {
    await channel.finish(response);
    http.closeRequest(request.id, channel);
    http.lastActivity = Date.now();
  });
  return { finished };
}
