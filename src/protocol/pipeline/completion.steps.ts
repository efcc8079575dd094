import type { Completion } from '../../mcp/mcp-types';
import type { HandlerRef } from '../../registry/descriptors';
import type { CallStep } from './stages';

/** The protocol's cap on completion values per response. */
const MAX_VALUES = 100;

/** The result stage of a completer: at most 100 values, with the total and hasMore when there were more. */
export function completionResultStep(completer: HandlerRef): CallStep {
  return async (_call, next) => ({ completion: capCompletion(await next(), completer) });
}

function capCompletion(result: unknown, completer: HandlerRef): Completion {
  const full: Completion | undefined = Array.isArray(result)
    ? { values: result.map(String) }
    : typeof result === 'object' && result !== null && Array.isArray((result as Completion).values)
      ? (result as Completion)
      : undefined;
  if (!full) throw new TypeError(`Completer ${completer.where} must return a string array or { values }`);
  const values = full.values.slice(0, MAX_VALUES).map(String);
  const total = full.total ?? full.values.length;
  return { values, total, hasMore: full.hasMore ?? total > values.length };
}
