import type { McpContext } from '../context/mcp-context';
import type { GuardClass } from '../contracts/guard';
import type { Middleware } from '../contracts/middleware';
import type { HandlerPolicies } from '../contracts/policies';
import type { JsonSchemaObject, PromptArgument, PromptDefinition, TaskSupport, ToolDefinition } from '../mcp/mcp-types';
import type { ResourceCommonOptions } from '../metadata/records';

/** Who may use a primitive registered at runtime (like `@RequireScopes` / `@Public` on a method). */
export interface DynamicAccess {
  /** OAuth scopes the caller needs (checked like `@RequireScopes`); none: anyone the server lets in. */
  scopes?: string[];
  /** Guards that must let the caller in (like `@UseGuards`), resolved through the application's container. */
  guards?: GuardClass[];
  /** Middleware around this handler only, inside the application's (like `@UseMiddleware`). */
  middleware?: Middleware[];
  /** Rate limits, idempotency, the cache, a timeout and a concurrency limit (like `@RateLimit`, `@Idempotent`…). */
  policies?: HandlerPolicies;
}

/** Completes an argument of a prompt or a variable of a template: the values that start with `value`. */
export type DynamicCompleter = (value: string, ctx: McpContext) => string[] | Promise<string[]>;

/** A tool registered at runtime (`app.addTool()`): a JSON Schema for its input instead of a class. */
export interface DynamicTool
  extends DynamicAccess, Pick<ToolDefinition, 'name' | 'title' | 'description' | 'annotations' | 'icons' | '_meta'> {
  /** JSON Schema (2020-12) with `type: "object"`; arguments are validated against it. Default: no arguments. */
  inputSchema?: JsonSchemaObject;
  /** JSON Schema with `type: "object"`: what the handler returns becomes `structuredContent`, validated. */
  outputSchema?: JsonSchemaObject;
  taskSupport?: TaskSupport;
  /** Words that group the tool, as `@Tool({ tags })`: search mode ranks them and filters by them. */
  tags?: string[];
  /** Receives the validated arguments; returns what a `@Tool` method may (text, content, a CallToolResult, data), or is an async generator. */
  handler: (args: Record<string, unknown>, ctx: McpContext) => unknown;
}

/** What `@Resource` options share, with the name required (there is no method name to default to). */
interface DynamicResourceCommon extends DynamicAccess, Omit<ResourceCommonOptions, 'name'> {
  name: string;
}

/** A resource at a fixed URI registered at runtime (`app.addResource()`). */
export interface DynamicStaticResource extends DynamicResourceCommon {
  uri: string;
  uriTemplate?: never;
  size?: number;
  /** Returns what a `@Resource` method may: text, bytes, data (JSON), or full contents. */
  handler: (ctx: McpContext) => unknown;
}

/** A resource template registered at runtime (`app.addResource()` with `uriTemplate`). */
export interface DynamicResourceTemplate extends DynamicResourceCommon {
  uriTemplate: string;
  uri?: never;
  /** Receives the template's variables (strings) as matched in the URI. */
  handler: (variables: Record<string, string>, ctx: McpContext) => unknown;
  /** Completers of the template's variables. */
  complete?: Record<string, DynamicCompleter>;
}

export type DynamicResource = DynamicStaticResource | DynamicResourceTemplate;

/** A prompt registered at runtime (`app.addPrompt()`). */
export interface DynamicPrompt extends DynamicAccess, PromptDefinition {
  /** The prompt's arguments; `required` ones must be present in prompts/get (else -32602). */
  arguments?: PromptArgument[];
  /** Receives the arguments (strings); returns messages, a GetPromptResult, or text. */
  handler: (args: Record<string, string>, ctx: McpContext) => unknown;
  /** Completers of the prompt's arguments. */
  complete?: Record<string, DynamicCompleter>;
}
