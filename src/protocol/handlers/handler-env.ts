import type { HandlerRef } from '../../registry/descriptors';
import type { Registry } from '../../registry/registry';
import type { Implementation, ServerCapabilities } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { TaskManager } from '../../tasks/task-manager';

/** What protocol handlers need from the application. */
export interface HandlerEnv {
  readonly registry: Registry;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  readonly capabilities: ServerCapabilities;
  readonly pageSize: number;
  /** Runs a user handler: resolves its provider through the container and calls the method. */
  invoke(ref: HandlerRef, args: unknown[]): Promise<unknown>;
  logError(message: string, error?: unknown): void;
  /** Present when some tool supports tasks: runs task-augmented calls and the tasks/* methods. */
  readonly tasks?: TaskManager;
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
