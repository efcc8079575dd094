import type { AuthInfo } from '../context/mcp-context';
import type { Annotations, Meta, ToolAnnotations } from '../mcp/mcp-types';

/** What a guard is shown of one operation and its caller. */
export interface GuardContext {
  /**
   * The caller, as the transport verified it. Always present: a handler with guards (or scopes) is
   * refused to unauthenticated callers before any guard runs.
   */
  readonly auth: AuthInfo;
  readonly kind: 'tool' | 'resource' | 'template' | 'prompt' | 'completion' | 'method';
  /** The tool's or prompt's name, the resource's or template's `name`, or the completed argument. */
  readonly name: string;
  /** "Class.method" of the handler. */
  readonly handler: string;
  /** The tool's or resource's annotations, as declared. */
  readonly annotations?: ToolAnnotations | Annotations;
  readonly _meta?: Meta;
  /** Every scope the operation needs (its own and its class's). */
  readonly requiredScopes: readonly string[];
}

/**
 * Decides whether a caller may use a handler (`@UseGuards`). Guards are classes resolved through the
 * application's container, so they can inject services; they run for calls and for list filtering.
 */
export interface CanActivate {
  canActivate(context: GuardContext): boolean | Promise<boolean>;
}

export type GuardClass = new (...args: never[]) => CanActivate;
