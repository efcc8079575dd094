import { ClashingUriTemplateError } from '../errors/clashing-uri-template.error';
import { DuplicatePromptNameError } from '../errors/duplicate-prompt-name.error';
import { DuplicateResourceError } from '../errors/duplicate-resource.error';
import { DuplicateToolNameError } from '../errors/duplicate-tool-name.error';
import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { MissingInputMetadataError } from '../errors/missing-input-metadata.error';
import { ReflectMetadataMissingError } from '../errors/reflect-metadata-missing.error';
import { UnknownCompletionTargetError } from '../errors/unknown-completion-target.error';
import { metadataStore } from '../metadata/metadata-store';
import type { CompleteOptions, MethodRecord, PromptOptions, ResourceOptions, SkillOptions, ToolOptions } from '../metadata/records';
import { EmptyInput } from '../schema/empty-input';
import { hasInputMetadata, JsonSchemaBuilder } from '../schema/json-schema.builder';
import { paramHeaders } from '../schema/mcp-header';
import type {
  CompleterDescriptor,
  HandlerKind,
  HandlerRef,
  InputClass,
  PromptDescriptor,
  ResourceDescriptor,
  TemplateDescriptor,
  ToolDescriptor,
} from './descriptors';
import { type AccessTarget, resolveAccess, streamingPolicyProblem, withPolicyHints } from './handler-access';
import { handlerParameters, typeName } from './handler-parameters';
import { Registry } from './registry';
import { UriTemplate } from './uri-template';
import { readView, toolViewMeta } from './view-builder';
import { viewRecords } from '../views/view-records';
import { clean, deepFreeze } from './definition-utils';
import { emptySchema, isClass, promptArguments, rawSchema, withView } from './builder-helpers';
import type { Contribution } from './contribution';

type ProviderClass = new (...args: never[]) => unknown;

/** A class whose decorator records are read, and the token its instances are resolved by. */
export interface ProviderEntry {
  readonly token: unknown;
  readonly cls: ProviderClass;
}
/** Tool input schemas name their dialect; output schemas do not, as some clients compile them with draft-07 validators. */
const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const PRIMITIVES: unknown[] = [Object, String, Number, Boolean, Array, Function, Promise, Symbol, BigInt, Date];

/** The decorated part of a registry, built once and reused by every rebuild that only changes contributions. */
export interface DecoratedParts {
  readonly tools: ReadonlyMap<string, ToolDescriptor>;
  readonly resources: ReadonlyMap<string, ResourceDescriptor>;
  readonly resourceNames: ReadonlyMap<string, string>;
  readonly templates: readonly TemplateDescriptor[];
  readonly prompts: ReadonlyMap<string, PromptDescriptor>;
  /** `@Skill` methods: the skills they write are served by the skills feature, not the registry. */
  readonly skills: readonly DecoratedSkill[];
}

/** A `@Skill` method: who may read it (its access decorators) and its options. */
export interface DecoratedSkill {
  readonly handler: HandlerRef;
  readonly options: SkillOptions;
}

/**
 * Builds the registry from the records of the given provider classes. Pure: it reads decorator
 * records and design-time types, derives every schema once, and throws a named definition error
 * for the first mistake it finds.
 */
export function buildRegistry(providers: readonly ProviderEntry[], contributions: readonly Contribution[] = []): Registry {
  return assembleRegistry(buildDecorated(providers), contributions);
}

/** The decorated part alone (the costly part: records read, schemas derived). */
export function buildDecorated(providers: readonly ProviderEntry[]): DecoratedParts {
  if (typeof Reflect !== 'object' || typeof Reflect.getMetadata !== 'function') {
    throw new ReflectMetadataMissingError('Reflect.getMetadata is not available');
  }
  return new Builder().decorated(providers);
}

/** A registry of decorated parts and contributions (merged with the same collision checks). */
export function assembleRegistry(parts: DecoratedParts, contributions: readonly Contribution[]): Registry {
  const builder = new Builder(parts);
  for (const contribution of contributions) builder.merge(contribution);
  return builder.registry();
}

class Builder {
  private readonly schemas = new JsonSchemaBuilder();
  private readonly tools: Map<string, ToolDescriptor>;
  private readonly resources: Map<string, ResourceDescriptor>;
  private readonly resourceNames: Map<string, string>;
  private readonly templates: (TemplateDescriptor & { completers: Map<string, CompleterDescriptor> })[];
  private readonly prompts: Map<string, PromptDescriptor & { completers: Map<string, CompleterDescriptor> }>;
  /** The URI of each view class listed among the providers. */
  private readonly views = new Map<unknown, string>();

  /** Starts empty, or from a copy of decorated parts (which it never changes). */
  constructor(parts?: DecoratedParts) {
    this.tools = new Map(parts?.tools);
    this.resources = new Map(parts?.resources);
    this.resourceNames = new Map(parts?.resourceNames);
    this.templates = [...(parts?.templates ?? [])] as (TemplateDescriptor & { completers: Map<string, CompleterDescriptor> })[];
    this.prompts = new Map(parts?.prompts) as Map<string, PromptDescriptor & { completers: Map<string, CompleterDescriptor> }>;
  }

  decorated(providers: readonly ProviderEntry[]): DecoratedParts {
    const completes: [ProviderEntry, MethodRecord<CompleteOptions>][] = [];
    const skills: DecoratedSkill[] = [];
    for (const provider of providers) this.addView(provider);
    for (const provider of providers) {
      const records = metadataStore.collect(provider.cls);
      for (const r of records.tools) this.addTool(provider, r);
      for (const r of records.resources) this.addResource(provider, r);
      for (const r of records.prompts) this.addPrompt(provider, r);
      for (const { method, options } of records.skills) {
        const target = { kind: 'resource' as const, name: options.name };
        skills.push({ handler: this.handlerRef(provider, method, 'resource', 'Skill', undefined, true, target).handler, options });
      }
      for (const r of records.completes) completes.push([provider, r]);
    }
    for (const [provider, r] of completes) this.addCompleter(provider, r);
    return {
      tools: this.tools,
      resources: this.resources,
      resourceNames: this.resourceNames,
      templates: this.templates,
      prompts: this.prompts,
      skills,
    };
  }

  registry(): Registry {
    return new Registry(this.tools, this.resources, this.templates, this.prompts);
  }

  /** Descriptors made elsewhere (runtime registration, mounts, proxies), after the decorated ones, with the same collision checks. */
  merge(c: Contribution): void {
    for (const t of c.tools ?? []) {
      const existing = this.tools.get(t.name);
      if (existing) throw new DuplicateToolNameError(t.name, existing.where, t.where);
      this.tools.set(t.name, t);
    }
    const claimName = (name: string, where: string) => c.uniqueResourceNames !== false && this.claimResourceName(name, where);
    for (const r of c.resources ?? []) {
      claimName(r.definition.name, r.where);
      const existing = this.resources.get(r.uri);
      if (existing) throw new DuplicateResourceError(`URI "${r.uri}"`, existing.where, r.where);
      this.resources.set(r.uri, r);
    }
    for (const t of c.templates ?? []) {
      claimName(t.definition.name, t.where);
      const clash = this.templates.find((other) => other.template.shape === t.template.shape);
      if (clash) throw new ClashingUriTemplateError(clash.template.template, clash.where, t.template.template, t.where);
      this.templates.push(t as TemplateDescriptor & { completers: Map<string, CompleterDescriptor> });
    }
    for (const p of c.prompts ?? []) {
      const existing = this.prompts.get(p.name);
      if (existing) throw new DuplicatePromptNameError(p.name, existing.where, p.where);
      this.prompts.set(p.name, p as PromptDescriptor & { completers: Map<string, CompleterDescriptor> });
    }
  }

  private claimResourceName(name: string, where: string): void {
    const sameName = this.resourceNames.get(name);
    if (sameName) throw new DuplicateResourceError(`name "${name}"`, sameName, where);
    this.resourceNames.set(name, where);
  }

  private addTool(provider: ProviderEntry, { method, options }: MethodRecord<ToolOptions>): void {
    const name = options.name ?? method;
    // With a verbatim inputSchema, an untyped first parameter takes the arguments as sent.
    const ref = this.handlerRef(provider, method, 'tool', 'Tool', options.input, options.inputSchema !== undefined, {
      kind: 'tool',
      name,
      annotations: options.annotations,
      _meta: options._meta,
    });
    const existing = this.tools.get(name);
    if (existing) throw new DuplicateToolNameError(name, existing.where, ref.where);
    const candidate = ref.params.declared ?? ref.params.designType;
    // A verbatim schema needs no class: an untyped (Object) first parameter takes the arguments as sent.
    const input =
      options.inputSchema && !(isClass(candidate) && !PRIMITIVES.includes(candidate) && hasInputMetadata(candidate))
        ? undefined
        : this.inputClass(ref.where, candidate);
    const output = options.output ? this.checkedClass(`${ref.where} output`, options.output) : undefined;
    const taskSupport = options.taskSupport ?? 'forbidden';
    if (ref.handler.access.policies?.cache && taskSupport !== 'forbidden')
      throw new InvalidDecoratorOptionsError('Cache', ref.where, 'cannot cache a tool that may run as a task (its answer is a task)');
    const definition = clean({
      name,
      title: options.title,
      description: options.description,
      inputSchema: options.inputSchema
        ? rawSchema(ref.where, options.inputSchema)
        : { $schema: JSON_SCHEMA_DIALECT, ...(input && input !== EmptyInput ? this.schemas.build(input) : emptySchema()) },
      outputSchema: output ? this.schemas.build(output) : undefined,
      annotations: withPolicyHints(options.annotations, ref.handler.access.policies),
      execution: taskSupport === 'forbidden' ? undefined : { taskSupport },
      icons: options.icons,
      _meta:
        options.ui === undefined
          ? options._meta
          : withView(options._meta, toolViewMeta(ref.where, options.ui, this.views, output !== undefined)),
    });
    try {
      paramHeaders(definition.inputSchema);
    } catch (error) {
      throw new InvalidDecoratorOptionsError('Tool', ref.where, (error as Error).message);
    }
    const fn = (provider.cls.prototype as Record<string, unknown>)[method] as { constructor: { name: string } };
    const streaming = fn.constructor.name === 'AsyncGeneratorFunction';
    const streamProblem = streaming ? streamingPolicyProblem(ref.handler.access.policies) : undefined;
    if (streamProblem) throw new InvalidDecoratorOptionsError(streamProblem.decorator, ref.where, streamProblem.text);
    this.tools.set(name, {
      ...ref.handler,
      name,
      definition: deepFreeze(definition),
      input,
      output,
      taskSupport,
      streaming,
      immediateResponse: options.immediateResponse,
      tags: toolTags(metadataStore.tags(provider.cls), options.tags),
    });
  }

  private addResource(provider: ProviderEntry, { method, options }: MethodRecord<ResourceOptions>): void {
    // A static resource is called as method(ctx), a template's handler with its variables first: both work untyped.
    const name = options.name ?? method;
    const target: AccessTarget = {
      kind: options.uri !== undefined ? 'resource' : 'template',
      name,
      annotations: options.annotations,
      _meta: options._meta,
    };
    const ref = this.handlerRef(
      provider,
      method,
      'resource',
      'Resource',
      options.uriTemplate === undefined ? undefined : options.input,
      true,
      target,
    );
    this.claimResourceName(name, ref.where);
    const common = {
      name,
      title: options.title,
      description: options.description,
      mimeType: options.mimeType,
      annotations: options.annotations,
      icons: options.icons,
      _meta: options._meta,
    };
    if (options.uri !== undefined) {
      const existing = this.resources.get(options.uri);
      if (existing) throw new DuplicateResourceError(`URI "${options.uri}"`, existing.where, ref.where);
      const definition = deepFreeze(clean({ uri: options.uri, ...common, size: options.size }));
      this.resources.set(options.uri, { ...ref.handler, uri: options.uri, definition, cache: options.cache });
      return;
    }
    const uriTemplate = new UriTemplate(options.uriTemplate);
    const clash = this.templates.find((t) => t.template.shape === uriTemplate.shape);
    if (clash) throw new ClashingUriTemplateError(clash.template.template, clash.where, uriTemplate.template, ref.where);
    // An untyped (or type-literal) first parameter takes the variables as they are, unvalidated.
    const { declared, designType } = ref.params;
    const params = declared
      ? this.checkedClass(ref.where, declared)
      : isClass(designType) && hasInputMetadata(designType)
        ? (designType as InputClass)
        : undefined;
    const definition = deepFreeze(clean({ uriTemplate: uriTemplate.template, ...common }));
    this.templates.push({ ...ref.handler, template: uriTemplate, definition, params, completers: new Map(), cache: options.cache });
  }

  /** A `@View` class: served as a resource at its ui:// URI, like any `@Resource` (listed, readable, authorized). */
  private addView(provider: ProviderEntry): void {
    if (!viewRecords.get(provider.cls)) return;
    const where = provider.cls.name;
    const view = readView(provider.cls, where);
    if (!view || this.views.has(provider.cls)) return;
    const name = view.definition.name;
    const existing = this.resources.get(view.definition.uri);
    if (existing) throw new DuplicateResourceError(`URI "${view.definition.uri}"`, existing.where, where);
    this.claimResourceName(name, where);
    const target: AccessTarget = { kind: 'resource', name, _meta: view.definition._meta };
    const access = resolveAccess(provider.cls, '', where, target);
    const handler = { kind: 'resource' as const, provider: provider.token, method: '', where, contextFirst: true, access };
    this.resources.set(view.definition.uri, {
      ...handler,
      uri: view.definition.uri,
      definition: deepFreeze(view.definition),
      view: { content: view.content, ui: view.ui && deepFreeze(view.ui) },
    });
    this.views.set(provider.cls, view.definition.uri);
  }

  private addPrompt(provider: ProviderEntry, { method, options }: MethodRecord<PromptOptions>): void {
    const name = options.name ?? method;
    const ref = this.handlerRef(provider, method, 'prompt', 'Prompt', options.input, false, { kind: 'prompt', name, _meta: options._meta });
    const existing = this.prompts.get(name);
    if (existing) throw new DuplicatePromptNameError(name, existing.where, ref.where);
    const args = this.inputClass(ref.where, ref.params.declared ?? ref.params.designType);
    const definition = deepFreeze(
      clean({
        name,
        title: options.title,
        description: options.description,
        arguments: args && args !== EmptyInput ? promptArguments(this.schemas.build(args)) : undefined,
        icons: options.icons,
        _meta: options._meta,
      }),
    );
    this.prompts.set(name, { ...ref.handler, name, definition, args, completers: new Map() });
  }

  private addCompleter(provider: ProviderEntry, { method, options }: MethodRecord<CompleteOptions>): void {
    // A completer is called as method(value, ctx): nothing to learn from its parameter types.
    const ref = this.handlerRef(provider, method, 'completion', 'Complete', undefined, true, {
      kind: 'completion',
      name: options.argument,
    });
    let target: { completers: Map<string, CompleterDescriptor> };
    if (options.prompt !== undefined) {
      const prompt = this.prompts.get(options.prompt);
      if (!prompt) throw new UnknownCompletionTargetError(ref.where, `no prompt is named "${options.prompt}"`);
      if (!prompt.definition.arguments?.some((a) => a.name === options.argument)) {
        throw new UnknownCompletionTargetError(ref.where, `prompt "${options.prompt}" has no argument "${options.argument}"`);
      }
      target = prompt;
    } else {
      const template = this.templates.find((t) => t.template.template === options.resource);
      if (!template) throw new UnknownCompletionTargetError(ref.where, `no resource template is "${options.resource}"`);
      if (!template.template.variableNames.includes(options.argument)) {
        throw new UnknownCompletionTargetError(ref.where, `template "${options.resource}" has no variable "${options.argument}"`);
      }
      target = template;
    }
    const existing = target.completers.get(options.argument);
    if (existing)
      throw new InvalidDecoratorOptionsError('Complete', ref.where, `"${options.argument}" is already completed by ${existing.where}`);
    target.completers.set(options.argument, { ...ref.handler, argument: options.argument });
  }

  private handlerRef(
    { token, cls }: ProviderEntry,
    method: string,
    kind: HandlerKind,
    decorator: string,
    declared: unknown,
    untypedFirst: boolean,
    target: AccessTarget,
  ) {
    const where = `${cls.name}.${method}`;
    const fn = (cls.prototype as Record<string, unknown>)[method];
    if (typeof fn !== 'function') throw new InvalidDecoratorOptionsError(kind, where, 'is not a method');
    const params = handlerParameters(cls, method, decorator, declared, untypedFirst);
    const access = resolveAccess(cls, method, where, target);
    return { handler: { kind, provider: token, method, where, contextFirst: params.contextFirst, access }, where, params };
  }

  private inputClass(where: string, candidate: unknown): InputClass | undefined {
    return candidate === undefined ? undefined : this.checkedClass(where, candidate);
  }

  private checkedClass(where: string, candidate: unknown): InputClass {
    if (!isClass(candidate) || PRIMITIVES.includes(candidate)) {
      throw new MissingInputMetadataError(where, typeName(candidate));
    }
    if (candidate !== EmptyInput && !hasInputMetadata(candidate)) throw new MissingInputMetadataError(where, candidate.name);
    return candidate as InputClass;
  }
}

/** A tool's tags: its class's (`@Tags`), then its own (`@Tool({ tags })`), each once; undefined when none. */
function toolTags(fromClass: readonly string[], own: readonly string[] | undefined): readonly string[] | undefined {
  const tags = [...new Set([...fromClass, ...(own ?? [])])];
  return tags.length > 0 ? Object.freeze(tags) : undefined;
}
