import type { Registry } from '../../registry/registry';
import type { Implementation, ServerCapabilities } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { Authorizer } from '../authorizer';
import type { ProtocolFeature } from '../protocol-feature';
import type { Invoke, ToolInvoker } from '../tool-invoker';
import type { SubscriptionHub } from '../per-request/subscriptions';
import type { RequestPolicies } from '../request-policies';

/** What protocol handlers need from the application. */
export interface HandlerEnv {
  readonly registry: Registry;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** The capabilities the server offers now (they follow the registry). */
  capabilities(): ServerCapabilities;
  readonly pageSize: number;
  /** Runs a user handler (resources, prompts, completions). */
  readonly invoke: Invoke;
  /** Runs a tool call: validation, invocation, result mapping. */
  readonly tools: ToolInvoker;
  /** Decides per-handler requirements (scopes, guards) for calls and lists. */
  readonly authorizer: Authorizer;
  readonly features: readonly ProtocolFeature[];
  /** Rate limits, idempotency and the result cache: every call passes them after authorization. */
  readonly policies: RequestPolicies;
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
