import type { McpContext } from '../../context/mcp-context';
import type { Invocation } from '../../contracts/middleware';
import type { ContentBlock } from '../../mcp/mcp-types';
import type { HandlerRef } from '../../registry/descriptors';
import type { RequestScope } from '../request-scope';

/** What a handler that takes the context alone is given as input (a static resource, a method whose first parameter is the context). */
export const NO_INPUT: unique symbol = Symbol('mcpkit.noInput');

/**
 * One call of a handler as its pipeline sees it (see stages.ts): the handler, the request it serves,
 * what the client sent and what the handler will be given. Middleware see it as an `Invocation`;
 * mcpkit's own steps read the request's scope from it, and the validation step sets `input`.
 */
export class Call implements Invocation {
  readonly kind: Invocation['kind'];
  readonly handler: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** What the handler is given before the context: the arguments until the validation step sets the checked input. */
  input: unknown;
  /** A streaming tool's blocks as its generator yields them (a task keeps them as segments). */
  onBlocks?: (blocks: ContentBlock[]) => Promise<void>;
  private ctx?: McpContext;

  constructor(
    readonly ref: HandlerRef,
    /** The request being served: its params, its client, its signal. A task's run has the task's scope. */
    readonly scope: RequestScope,
    readonly name: string,
    args: Readonly<Record<string, unknown>>,
    input: unknown = args,
    /** The handler's context made from the request's (a completion's carries the resolved arguments). */
    private readonly contextOf?: (context: McpContext) => McpContext,
  ) {
    this.kind = ref.access.kind;
    this.handler = ref.where;
    this.arguments = args;
    this.input = input;
  }

  get context(): McpContext {
    this.ctx ??= this.contextOf ? this.contextOf(this.scope.context()) : this.scope.context();
    return this.ctx;
  }

  get args(): unknown[] {
    return this.ref.contextFirst || this.input === NO_INPUT ? [this.context] : [this.input, this.context];
  }

  /** The same call, run in another scope (a task's), its streamed blocks going to `onBlocks`. */
  in(scope: RequestScope, onBlocks?: (blocks: ContentBlock[]) => Promise<void>): Call {
    const moved = new Call(this.ref, scope, this.name, this.arguments, this.input, this.contextOf);
    moved.onBlocks = onBlocks;
    return moved;
  }

  /** The same call, of the handler `ref` stands for in the application that defined it (a mounted handler's own). */
  of(ref: HandlerRef): Call {
    const own = new Call(ref, this.scope, this.name, this.arguments, this.input, this.contextOf);
    own.ctx = this.ctx;
    own.onBlocks = this.onBlocks;
    return own;
  }
}
