import { McpContext } from '../context/mcp-context';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { PolicyEnv } from './policy-env';
import type { HandlerStep } from './handler-step';

/**
 * A handler that runs past `ms`: its `ctx.signal` is aborted (with the timeout error as the reason) and
 * the call is answered with -32603 "… timed out after N ms" (a task fails with it). The handler is not
 * waited for; one that ignores its signal runs on, unanswered.
 */
export function timeoutStep(env: PolicyEnv, ms: number): HandlerStep {
  return (call, args, run) => {
    const controller = new AbortController();
    const error = new McpError(ErrorCode.InternalError, `${label(call.kind)} "${call.name}" timed out after ${ms} ms`, { timeoutMs: ms });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        env.record('timeout', 'timed_out', call);
        controller.abort(error);
        reject(error);
      }, ms);
    });
    const work = run(args.map((a) => (a instanceof McpContext ? withDeadline(a, controller.signal) : a)));
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };
}

/**
 * The handler's context with a signal that also aborts at the deadline. The context keeps every other
 * member (it is the request's own, one prototype down), so it stays an McpContext for the handler.
 */
function withDeadline(context: McpContext, deadline: AbortSignal): McpContext {
  const signal = AbortSignal.any([context.signal, deadline]);
  return Object.create(context, { signal: { value: signal, enumerable: true } }) as McpContext;
}

function label(kind: string): string {
  return kind === 'tool' ? 'Tool' : kind === 'prompt' ? 'Prompt' : 'Resource';
}
