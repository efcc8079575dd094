import type { Step } from '../../contracts/middleware';
import type { HandlerRef } from '../../registry/descriptors';
import type { Call } from './call';

/**
 * The stages of every call of a handler (a tool, resource, prompt, completion or custom method),
 * outermost first: the one place their order is written. A stage a handler does not use adds no step
 * to its chain.
 *
 * - `denials`: a refusal of any later stage gets its SEP-2643 envelope (protocol; with `structuredDenials`).
 * - `authorize`: the caller's scopes and `@UseGuards` (protocol); a refusal is a JSON-RPC error.
 * - `headers`: a 2026-07-28 call's `Mcp-Param-*` headers against its arguments (protocol).
 * - `rateLimit`, `idempotency`, `cache`: call policies on the request (policies): before a task is made,
 *   before validation, so a refused caller costs a bucket read and a replay or a hit skips the rest.
 * - `task`: the task boundary (the tasks feature): a task-augmented call returns its task here, and the
 *   stages after it run inside the task.
 * - `result`: what the handler returned or threw, as the method's result (a tool's error result, a
 *   prompt's messages, a resource's contents) (protocol).
 * - `validate`: the arguments against the input class or schema (protocol).
 * - `concurrency`, `timeout`: call policies around the handler's run (policies).
 * - `middleware`: the application's `middleware` (kernel).
 * - `own`: the handler's `@UseMiddleware` (protocol).
 * - `invoke`: the method on its provider, or the handler's function (kernel).
 */
export const STAGES = [
  'denials',
  'authorize',
  'headers',
  'rateLimit',
  'idempotency',
  'cache',
  'task',
  'result',
  'validate',
  'concurrency',
  'timeout',
  'middleware',
  'own',
  'invoke',
] as const;

export type Stage = (typeof STAGES)[number];

/**
 * Where a mounted handler's own application takes over: from this stage on, its steps are those of the
 * application that defined it (its middleware, its provider); the stages before are the mounting one's.
 */
export const OWN_APPLICATION_FROM: Stage = 'middleware';

/** A step of a call's pipeline: a middleware over the `Call`. */
export type CallStep = Step<Call>;

/** A stage's steps for one handler (none: the handler does not use the stage), made when its pipeline is composed. */
export type StepFactory = (ref: HandlerRef) => CallStep | readonly CallStep[] | undefined;

/** Who supplies which stages: the protocol its own, the kernel, features and policies theirs. */
export type StageSuppliers = Partial<Record<Stage, StepFactory>>;
