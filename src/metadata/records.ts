import type { GuardClass } from '../contracts/guard';
import type { Middleware } from '../contracts/middleware';
import type { HandlerPolicies } from '../contracts/policies';
import type { Annotations, Icon, JsonSchemaObject, Meta, TaskSupport, ToolAnnotations } from '../mcp/mcp-types';
import type { CacheHint } from '../contracts/cache-hints';
import type { ToolUi } from '../views/view.types';

/** A class constructor, as decorators see it. */
export type Constructor<T = unknown> = abstract new (...args: never[]) => T;
export type ClassType<T = unknown> = new (...args: never[]) => T;

/** Options of `@Tool`. */
export interface ToolOptions {
  /** The tool's name; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * The input class; defaults to the type of the method's first parameter. `null`: the tool takes no
   * arguments and the method only the context (`method(ctx)`). Runtimes that emit no decorator
   * metadata (tsx, esbuild, vitest; bun without emitDecoratorMetadata) need one of the two whenever the method has parameters.
   */
  input?: ClassType | null;
  /**
   * The input schema to publish, verbatim (any JSON Schema 2020-12 with `type: "object"`), instead of
   * the one derived from the input class. Arguments are then validated only by the input class if
   * there is one (a method typed `(args: Record<string, unknown>)` receives them as sent).
   */
  inputSchema?: JsonSchemaObject;
  /** A class-validator class describing `structuredContent`; the result is validated against it. */
  output?: ClassType;
  /** Whether the tool may (or must) run as a task. Default `forbidden`. */
  taskSupport?: TaskSupport;
  /** When a call becomes a task, a message the host may hand the model at once (`model-immediate-response`). */
  immediateResponse?: string;
  /** The tool's interactive view (MCP Apps): a `@View` class, or `{ view, visibility, fallback }`. */
  ui?: ToolUi;
  /** Words that group the tool (`github`, `billing`): search mode ranks them and filters by them. Not sent to clients. */
  tags?: string[];
}

/** What `@Resource` options of a fixed URI and of a template share (also the base of `app.addResource()`'s definitions). */
export interface ResourceCommonOptions {
  /** The resource's name; defaults to the method name. */
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * The caching hint of its reads for 2026-07-28 clients (`ttlMs`, and `scope`: 'public' when the
   * content is the same for every caller). Default: the application's `cache.reads`, else `ttlMs: 0`.
   */
  cache?: CacheHint;
}

/** Options of `@Resource` for one fixed URI. */
export interface StaticResourceOptions extends ResourceCommonOptions {
  uri: string;
  size?: number;
  uriTemplate?: never;
}

/** Options of `@Resource` for a family of URIs described by an RFC 6570 template. */
export interface TemplateResourceOptions extends ResourceCommonOptions {
  uriTemplate: string;
  uri?: never;
  /**
   * The class the template variables are validated against; defaults to the type of the method's first
   * parameter. `null`: the method takes only the context (`method(ctx)`). Without decorator metadata and
   * without this option, the method receives the variables unvalidated.
   */
  input?: ClassType | null;
}

export type ResourceOptions = StaticResourceOptions | TemplateResourceOptions;

/**
 * Options of `@Skill`: the frontmatter of the skill the method writes (the method returns the markdown
 * after it, for each read; the skill is served with `resources: "dynamic"`).
 */
export interface SkillOptions {
  /** The skill's name (Agent Skills rules: lowercase letters, digits, single hyphens). */
  name: string;
  /** What the skill does and when to use it. */
  description: string;
  /** Folders above the skill in its URI: `acme` serves `skill://acme/<name>/SKILL.md`. */
  prefix?: string;
  /** Further frontmatter fields (`license`, `metadata`, ...). */
  frontmatter?: Record<string, unknown>;
}

/** Options of `@Prompt`. */
export interface PromptOptions {
  name?: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * The arguments class; defaults to the type of the method's first parameter. `null`: the prompt takes
   * no arguments and the method only the context (`method(ctx)`). Runtimes that emit no decorator
   * metadata (tsx, esbuild, vitest; bun without emitDecoratorMetadata) need one of the two whenever the method has parameters.
   */
  input?: ClassType | null;
}

/** Options of `@Complete`: which prompt or template argument the method completes. */
export type CompleteOptions = { argument: string } & ({ prompt: string; resource?: never } | { resource: string; prompt?: never });

/** Options of `@Field`: JSON Schema annotations for a property of an input class. */
export interface FieldOptions {
  description?: string;
  title?: string;
  default?: unknown;
  examples?: unknown[];
  format?: string;
  /** Display names of enum values, in the order of the values (used by elicitation forms). */
  enumNames?: string[];
  /** How titled enums are sent in elicitation forms: `titled` (oneOf/anyOf, the default) or the deprecated `legacy` enumNames. */
  enumStyle?: 'titled' | 'legacy';
}

/** Options of `@JsonSchema`: schema details of a whole input class. */
export interface ClassSchemaOptions {
  /** `false` rejects unknown properties (validation refuses them too); default: unknown ones are stripped. */
  additionalProperties?: boolean;
  /** Emit this class once under `$defs/<definition>` and refer to it, instead of inlining it. */
  definition?: string;
  title?: string;
  description?: string;
}

export interface MethodRecord<O> {
  readonly method: string;
  readonly options: O;
}

/** One `@RequireScopes`, `@Public`, `@UseGuards` or `@UseMiddleware`, on a class or a method. */
export interface AccessRecord {
  readonly scopes?: readonly string[];
  readonly public?: true;
  readonly guards?: readonly GuardClass[];
  readonly middleware?: readonly Middleware[];
  readonly policies?: HandlerPolicies;
}

/** The access records of a class: those on the class itself, and those of each method. */
export interface ClassAccessRecords {
  readonly type: readonly AccessRecord[];
  readonly methods: ReadonlyMap<string, readonly AccessRecord[]>;
}

export interface FieldRecord {
  readonly property: string;
  readonly options: FieldOptions;
}

/** A module's providers entry: a class, or a registration under a token. */
export type ProviderToken<T = unknown> = string | symbol | Constructor<T>;
export type ProviderLifecycle = 'singleton' | 'transient';
export type Provider =
  | ClassType
  | { provide: ProviderToken; useClass: ClassType; lifecycle?: ProviderLifecycle }
  | { provide: ProviderToken; useValue: unknown }
  | { provide: ProviderToken; useFactory: (resolve: <T>(token: ProviderToken<T>) => T) => unknown };

/**
 * The options given to `@McpModule`, kept as written. Their type, `ModuleOptions`, is the kernel's
 * (kernel/module-options.ts): besides providers and imports they hold application options, which only
 * the kernel reads.
 */
export type ModuleRecord = object;
