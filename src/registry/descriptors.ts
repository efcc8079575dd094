import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  TaskSupport,
  ToolDefinition,
} from '../mcp/mcp-types';
import type { UriTemplate } from './uri-template';

export type InputClass = new (...args: never[]) => object;

/** Where a handler lives: the provider class (resolved through the container at call time) and method. */
export type HandlerKind = 'tool' | 'resource' | 'prompt' | 'completion';

export interface HandlerRef {
  readonly kind: HandlerKind;
  /** The token the provider is resolved by, through the application's container, at call time. */
  readonly provider: unknown;
  readonly method: string;
  /** "Class.method", for logs and errors. */
  readonly where: string;
  /** True when the method's first parameter is the context (it takes no input). */
  readonly contextFirst: boolean;
}

export interface ToolDescriptor extends HandlerRef {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly input?: InputClass;
  readonly output?: InputClass;
  readonly taskSupport: TaskSupport;
  /** The method is an async generator: its results are produced incrementally (streamable). */
  readonly streaming: boolean;
  /** Text for `io.modelcontextprotocol/model-immediate-response` when the call becomes a task. */
  readonly immediateResponse?: string;
}

export interface ResourceDescriptor extends HandlerRef {
  readonly uri: string;
  readonly definition: ResourceDefinition;
}

export interface CompleterDescriptor extends HandlerRef {
  readonly argument: string;
}

export interface TemplateDescriptor extends HandlerRef {
  readonly template: UriTemplate;
  readonly definition: ResourceTemplateDefinition;
  readonly params?: InputClass;
  readonly completers: ReadonlyMap<string, CompleterDescriptor>;
}

export interface PromptDescriptor extends HandlerRef {
  readonly name: string;
  readonly definition: PromptDefinition;
  readonly args?: InputClass;
  readonly completers: ReadonlyMap<string, CompleterDescriptor>;
}
