import type { CacheHint } from '../contracts/cache-hints';
import type {
  Annotations,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  TaskSupport,
  ToolAnnotations,
  ToolDefinition,
} from '../mcp/mcp-types';
import type { GuardClass } from '../contracts/guard';
import type { Invocation, Middleware } from '../contracts/middleware';
import type { HandlerPolicies } from '../contracts/policies';
import type { UriTemplate } from './uri-template';
import type { ViewContent } from '../views/view-content';
import type { InputCheck } from '../validation/json-schema-check';

export type InputClass = new (...args: never[]) => object;

/** Where a handler lives: the provider class (resolved through the container at call time) and method. */
export type HandlerKind = 'tool' | 'resource' | 'prompt' | 'completion' | 'method';

/** Who may use a handler, resolved from `@RequireScopes`, `@Public`, `@UseGuards` and `@UseMiddleware`. */
export interface HandlerAccess {
  /** The kind as guards see it (a template is not a resource). */
  readonly kind: 'tool' | 'resource' | 'template' | 'prompt' | 'completion' | 'method';
  /** The tool's or prompt's name, the resource's or template's name, or the completed argument. */
  readonly name: string;
  readonly annotations?: ToolAnnotations | Annotations;
  readonly _meta?: Readonly<Record<string, unknown>>;
  /** Every scope the caller needs: class-level and method-level, sorted, without repeats. */
  readonly scopes: readonly string[];
  /** Class-level guards first, then the method's. */
  readonly guards: readonly GuardClass[];
  /** Marked `@Public` (its class's requirements do not apply). */
  readonly public: boolean;
  /** The handler's own middleware, outermost first (inside the application's middleware). */
  readonly middleware: readonly Middleware[];
  /** True when a caller needs authentication: some scope or guard applies. */
  readonly restricted: boolean;
  /** Rate limits, idempotency, the cache, a timeout and a concurrency limit (method-level over class-level). */
  readonly policies?: HandlerPolicies;
}

export interface HandlerRef {
  readonly kind: HandlerKind;
  /** The token the provider is resolved by, through the application's container, at call time. */
  readonly provider: unknown;
  readonly method: string;
  /** "Class.method", for logs and errors. */
  readonly where: string;
  /** True when the method's first parameter is the context (it takes no input). */
  readonly contextFirst: boolean;
  readonly access: HandlerAccess;
  /**
   * Set when the handler is a function rather than a provider method (registered at runtime, mounted
   * from another application, proxied): called with the arguments the method would get, and the call.
   */
  readonly run?: (args: unknown[], invocation: Invocation) => unknown;
}

export interface ToolDescriptor extends HandlerRef {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly input?: InputClass;
  readonly output?: InputClass;
  /** Checks arguments against a JSON Schema (tools registered at runtime); used instead of `input`. */
  readonly validate?: InputCheck;
  /** Checks structured output against a JSON Schema; used instead of `output`. */
  readonly validateOutput?: InputCheck;
  readonly taskSupport: TaskSupport;
  /** The method is an async generator: its results are produced incrementally (streamable). */
  readonly streaming: boolean;
  /** Text for `io.modelcontextprotocol/model-immediate-response` when the call becomes a task. */
  readonly immediateResponse?: string;
  /** Words that group the tool (search mode): the server's own, never sent. */
  readonly tags?: readonly string[];
}

export interface ResourceDescriptor extends HandlerRef {
  readonly uri: string;
  readonly definition: ResourceDefinition;
  readonly cache?: CacheHint;
  /** Called when a client subscribes to the resource (a proxied one subscribes at its server); a rejection refuses the subscription. */
  readonly watch?: (uri: string) => Promise<void>;
  /** Set when the resource is a `@View`: its HTML, and the `_meta.ui` its contents carry. */
  readonly view?: { readonly content: ViewContent; readonly ui?: Readonly<Record<string, unknown>> };
}

export interface CompleterDescriptor extends HandlerRef {
  readonly argument: string;
}

export interface TemplateDescriptor extends HandlerRef {
  readonly template: UriTemplate;
  readonly definition: ResourceTemplateDefinition;
  readonly params?: InputClass;
  readonly cache?: CacheHint;
  /** Called when a client subscribes to a resource of the template (see ResourceDescriptor.watch). */
  readonly watch?: (uri: string) => Promise<void>;
  readonly completers: ReadonlyMap<string, CompleterDescriptor>;
}

export interface PromptDescriptor extends HandlerRef {
  readonly name: string;
  readonly definition: PromptDefinition;
  readonly args?: InputClass;
  /** Checks arguments (prompts registered at runtime: the required ones are present); used instead of `args`. */
  readonly validate?: InputCheck;
  readonly completers: ReadonlyMap<string, CompleterDescriptor>;
}
