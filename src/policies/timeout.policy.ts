import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { PolicyEnv } from './policy-env';
import type { CallStep } from '../protocol/pipeline/stages';

/**
 * A handler that runs past `ms`: its `ctx.signal` is aborted (with the timeout error as the reason) and
 * the call is answered with -32603 "… timed out after N ms" (a task fails with it). The handler is not
 * waited for; one that ignores its signal runs on, unanswered. Only the handler's signal is aborted:
 * the request is not cancelled, so its answer (the timeout error) goes out.
 */
export function timeoutStep(env: PolicyEnv, ms: number): CallStep {
  return (call, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Made only when it happens: an Error captures its stack, a cost every call would pay.
        const error = new McpError(ErrorCode.InternalError, `${label(call.kind)} "${call.name}" timed out after ${ms} ms`, {
          timeoutMs: ms,
        });
        env.record('timeout', 'timed_out', call);
        call.scope.abortHandler(error);
        reject(error);
      }, ms);
    });
    return Promise.race([next(), expired]).finally(() => clearTimeout(timer));
  };
}

function label(kind: string): string {
  return kind === 'tool' ? 'Tool' : kind === 'prompt' ? 'Prompt' : 'Resource';
}
