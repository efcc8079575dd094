import { McpContext } from '../context/mcp-context';
import { ClashingUriTemplateError } from '../errors/clashing-uri-template.error';
import { DuplicatePromptNameError } from '../errors/duplicate-prompt-name.error';
import { DuplicateResourceError } from '../errors/duplicate-resource.error';
import { DuplicateToolNameError } from '../errors/duplicate-tool-name.error';
import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { InvalidHandlerSignatureError } from '../errors/invalid-handler-signature.error';
import { MissingInputMetadataError } from '../errors/missing-input-metadata.error';
import { ReflectMetadataMissingError } from '../errors/reflect-metadata-missing.error';
import { UnknownCompletionTargetError } from '../errors/unknown-completion-target.error';
import { metadataStore } from '../metadata/metadata-store';
import type { CompleteOptions, MethodRecord, PromptOptions, ResourceOptions, ToolOptions } from '../metadata/records';
import type { JsonSchemaObject, PromptArgument } from '../mcp/mcp-types';
import { EmptyInput } from '../schema/empty-input';
import { hasInputMetadata, JsonSchemaBuilder } from '../schema/json-schema.builder';
import type {
  CompleterDescriptor,
  HandlerKind,
  InputClass,
  PromptDescriptor,
  ResourceDescriptor,
  TemplateDescriptor,
  ToolDescriptor,
} from './descriptors';
import { Registry } from './registry';
import { UriTemplate } from './uri-template';

type ProviderClass = new (...args: never[]) => unknown;

/** A class whose decorator records are read, and the token its instances are resolved by. */
export interface ProviderEntry {
  readonly token: unknown;
  readonly cls: ProviderClass;
}
/** Tool input schemas name their dialect; output schemas do not, as some clients compile them with draft-07 validators. */
const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const PRIMITIVES: unknown[] = [Object, String, Number, Boolean, Array, Function, Promise, Symbol, BigInt, Date];

/**
 * Builds the registry from the records of the given provider classes. Pure: it reads decorator
 * records and design-time types, derives every schema once, and throws a named definition error
 * for the first mistake it finds.
 */
export function buildRegistry(providers: readonly ProviderEntry[]): Registry {
  if (typeof Reflect !== 'object' || typeof Reflect.getMetadata !== 'function') {
    throw new ReflectMetadataMissingError('Reflect.getMetadata is not available');
  }
  return new Builder().build(providers);
}

class Builder {
  private readonly schemas = new JsonSchemaBuilder();
  private readonly tools = new Map<string, ToolDescriptor>();
  private readonly resources = new Map<string, ResourceDescriptor>();
  private readonly resourceNames = new Map<string, string>();
  private readonly templates: (TemplateDescriptor & { completers: Map<string, CompleterDescriptor> })[] = [];
  private readonly prompts = new Map<string, PromptDescriptor & { completers: Map<string, CompleterDescriptor> }>();

  build(providers: readonly ProviderEntry[]): Registry {
    const completes: [ProviderEntry, MethodRecord<CompleteOptions>][] = [];
    for (const provider of providers) {
      const records = metadataStore.collect(provider.cls);
      for (const r of records.tools) this.addTool(provider, r);
      for (const r of records.resources) this.addResource(provider, r);
      for (const r of records.prompts) this.addPrompt(provider, r);
      for (const r of records.completes) completes.push([provider, r]);
    }
    for (const [provider, r] of completes) this.addCompleter(provider, r);
    return new Registry(this.tools, this.resources, this.templates, this.prompts);
  }

  private addTool(provider: ProviderEntry, { method, options }: MethodRecord<ToolOptions>): void {
    const ref = this.handlerRef(provider, method, 'tool');
    const name = options.name ?? method;
    const existing = this.tools.get(name);
    if (existing) throw new DuplicateToolNameError(name, existing.where, ref.where);
    const input = this.inputClass(ref.where, options.input as InputClass | undefined, ref.firstParam);
    const output = options.output ? this.checkedClass(`${ref.where} output`, options.output) : undefined;
    const taskSupport = options.taskSupport ?? 'forbidden';
    const definition = clean({
      name,
      title: options.title,
      description: options.description,
      inputSchema: { $schema: JSON_SCHEMA_DIALECT, ...(input && input !== EmptyInput ? this.schemas.build(input) : emptySchema()) },
      outputSchema: output ? this.schemas.build(output) : undefined,
      annotations: options.annotations,
      execution: taskSupport === 'forbidden' ? undefined : { taskSupport },
      icons: options.icons,
      _meta: options._meta,
    });
    const fn = (provider.cls.prototype as Record<string, unknown>)[method] as { constructor: { name: string } };
    const streaming = fn.constructor.name === 'AsyncGeneratorFunction';
    this.tools.set(name, { ...ref.handler, name, definition: deepFreeze(definition), input, output, taskSupport, streaming, immediateResponse: options.immediateResponse });
  }

  private addResource(provider: ProviderEntry, { method, options }: MethodRecord<ResourceOptions>): void {
    const ref = this.handlerRef(provider, method, 'resource');
    const name = options.name ?? method;
    const sameName = this.resourceNames.get(name);
    if (sameName) throw new DuplicateResourceError(`name "${name}"`, sameName, ref.where);
    this.resourceNames.set(name, ref.where);
    const common = { name, title: options.title, description: options.description, mimeType: options.mimeType, annotations: options.annotations, icons: options.icons, _meta: options._meta };
    if (options.uri !== undefined) {
      const existing = this.resources.get(options.uri);
      if (existing) throw new DuplicateResourceError(`URI "${options.uri}"`, existing.where, ref.where);
      const definition = deepFreeze(clean({ uri: options.uri, ...common, size: options.size }));
      this.resources.set(options.uri, { ...ref.handler, uri: options.uri, definition });
      return;
    }
    const template = new UriTemplate(options.uriTemplate);
    const clash = this.templates.find((t) => t.template.shape === template.shape);
    if (clash) throw new ClashingUriTemplateError(clash.template.template, clash.where, template.template, ref.where);
    const declared = options.input ?? (isClass(ref.firstParam) && hasInputMetadata(ref.firstParam) ? ref.firstParam : undefined);
    const params = declared ? this.checkedClass(ref.where, declared) : undefined;
    const definition = deepFreeze(clean({ uriTemplate: template.template, ...common }));
    this.templates.push({ ...ref.handler, template, definition, params, completers: new Map() });
  }

  private addPrompt(provider: ProviderEntry, { method, options }: MethodRecord<PromptOptions>): void {
    const ref = this.handlerRef(provider, method, 'prompt');
    const name = options.name ?? method;
    const existing = this.prompts.get(name);
    if (existing) throw new DuplicatePromptNameError(name, existing.where, ref.where);
    const args = this.inputClass(ref.where, options.input as InputClass | undefined, ref.firstParam);
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
    const ref = this.handlerRef(provider, method, 'completion');
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
    if (existing) throw new InvalidDecoratorOptionsError('Complete', ref.where, `"${options.argument}" is already completed by ${existing.where}`);
    target.completers.set(options.argument, { ...ref.handler, argument: options.argument });
  }

  private handlerRef({ token, cls }: ProviderEntry, method: string, kind: HandlerKind) {
    const where = `${cls.name}.${method}`;
    const fn = (cls.prototype as Record<string, unknown>)[method];
    if (typeof fn !== 'function') throw new InvalidDecoratorOptionsError(kind, where, 'is not a method');
    const paramTypes = Reflect.getMetadata('design:paramtypes', cls.prototype, method) as unknown[] | undefined;
    if (paramTypes === undefined && fn.length > 0) {
      throw new ReflectMetadataMissingError(`No design-time parameter types were emitted for ${where}`);
    }
    const firstParam = paramTypes?.[0];
    const contextFirst = isContext(firstParam);
    if (contextFirst && paramTypes !== undefined && paramTypes.length > 1) {
      const input = typeName(paramTypes[1]);
      throw new InvalidHandlerSignatureError(
        where,
        `the context is the first parameter, so mcpkit would pass the context there and nothing as ${input}. ` +
          `The input comes first and the context last: declare it as ${method}(input: ${input}, ctx: McpContext).`,
      );
    }
    return { handler: { kind, provider: token, method, where, contextFirst }, where, firstParam: contextFirst ? undefined : firstParam };
  }

  private inputClass(where: string, declared: InputClass | undefined, firstParam: unknown): InputClass | undefined {
    const candidate = declared ?? firstParam;
    if (candidate === undefined) return undefined;
    return this.checkedClass(where, candidate);
  }

  private checkedClass(where: string, candidate: unknown): InputClass {
    if (!isClass(candidate) || PRIMITIVES.includes(candidate)) {
      throw new MissingInputMetadataError(where, typeName(candidate));
    }
    if (candidate !== EmptyInput && !hasInputMetadata(candidate)) throw new MissingInputMetadataError(where, candidate.name);
    return candidate as InputClass;
  }
}

function promptArguments(schema: JsonSchemaObject): PromptArgument[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const prop = p as { title?: string; description?: string };
    return clean({ name, title: prop.title, description: prop.description, required: required.has(name) });
  });
}

function emptySchema(): JsonSchemaObject {
  return { type: 'object', properties: {} };
}

function isContext(value: unknown): boolean {
  return isClass(value) && (value === McpContext || value.prototype instanceof McpContext);
}

function isClass(value: unknown): value is new (...args: never[]) => unknown {
  return typeof value === 'function' && value.prototype !== undefined;
}

function typeName(value: unknown): string {
  return typeof value === 'function' ? value.name || 'anonymous' : String(value);
}

/** Drops undefined members, so definitions serialize without them. */
function clean<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
