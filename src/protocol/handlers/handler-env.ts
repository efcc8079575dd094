import type { Registry } from '../../registry/registry';
import type { Implementation, ServerCapabilities } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { Authorizer } from '../authorizer';
import type { Pipelines } from '../pipeline/pipelines';
import type { SubscriptionHub } from '../per-request/subscriptions';
import type { ToolSearchEnv, ToolSearchOptions } from './tool-search';

/** What protocol handlers need from the application. */
export interface HandlerEnv {
  readonly registry: Registry;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** The capabilities the server offers now (they follow the registry). */
  capabilities(): ServerCapabilities;
  readonly pageSize: number;
  /** Search mode: `tools/list` answers a search tool and a call tool (see tool-search.ts). */
  readonly toolSearch?: ToolSearchEnv & { readonly options: ToolSearchOptions };
  /** Every handler's pipeline: a call of a handler runs through it (see pipeline/stages.ts). */
  readonly pipelines: Pipelines;
  /** Decides per-handler requirements (scopes, guards): lists, and what is not a call (a view, a subscription). */
  readonly authorizer: Authorizer;
  /** The open `subscriptions/listen` streams (a feature tells them of its own changes). */
  readonly subscriptions: SubscriptionHub;
  logError(message: string, error?: unknown): void;
}

/** Reads a required string member of params, or fails with -32602 naming it. */
export function requireString(params: Record<string, unknown>, key: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw McpError.invalidParams(`Invalid params: "${key}" must be a string`);
  return value;
}

/** Reads an optional object member of params, or fails with -32602 naming it. */
export function optionalObject(params: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = params[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw McpError.invalidParams(`Invalid params: "${key}" must be an object`);
  }
  return value as Record<string, unknown>;
}
