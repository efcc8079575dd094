import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import { UnknownCompletionTargetError } from '../errors/unknown-completion-target.error';
import type { JsonSchemaObject, TaskSupport } from '../mcp/mcp-types';
import { paramHeaders } from '../schema/mcp-header';
import { compileJsonSchema, type InputCheck } from '../validation/json-schema-check';
import { clean, deepFreeze } from './definition-utils';
import type {
  CompleterDescriptor,
  HandlerAccess,
  HandlerKind,
  PromptDescriptor,
  ResourceDescriptor,
  TemplateDescriptor,
  ToolDescriptor,
} from './descriptors';
import type { DynamicAccess, DynamicCompleter, DynamicPrompt, DynamicResource, DynamicTool } from './dynamic-definitions';
import { UriTemplate } from './uri-template';
import { accessFromOptions, streamingPolicyProblem, withPolicyHints } from './handler-access';
import { validTags } from '../metadata/tool-tags';

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const TASK_SUPPORT: readonly TaskSupport[] = ['forbidden', 'optional', 'required'];
/** Tool names as the specification recommends them: 1-128 of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A tool registered at runtime as a descriptor: its schemas compiled once, its definition frozen. */
export function dynamicTool(def: DynamicTool): ToolDescriptor {
  const where = `tool "${String(def?.name)}"`;
  if (typeof def !== 'object' || def === null) throw new InvalidDefinitionError('addTool', 'expects a definition object');
  if (typeof def.name !== 'string' || !TOOL_NAME.test(def.name))
    throw new InvalidDefinitionError(where, 'name must be 1-128 characters of A-Z a-z 0-9 _ - .');
  const handler = requireHandler(where, def.handler);
  const taskSupport = def.taskSupport ?? 'forbidden';
  if (!TASK_SUPPORT.includes(taskSupport)) throw new InvalidDefinitionError(where, `taskSupport must be one of ${TASK_SUPPORT.join(', ')}`);
  const streamProblem = handler.constructor.name === 'AsyncGeneratorFunction' ? streamingPolicyProblem(def.policies) : undefined;
  if (streamProblem)
    throw new InvalidDefinitionError(where, `${streamProblem.decorator === 'Timeout' ? 'timeoutMs' : 'concurrency'} ${streamProblem.text}`);
  if (def.policies?.cache && taskSupport !== 'forbidden')
    throw new InvalidDefinitionError(where, 'cannot cache a tool that may run as a task (its answer is a task)');
  if (def.tags !== undefined && !validTags(def.tags)) throw new InvalidDefinitionError(where, 'tags must be an array of non-empty strings');
  const inputSchema = objectSchema(where, 'inputSchema', def.inputSchema ?? { type: 'object', properties: {} });
  const outputSchema = def.outputSchema === undefined ? undefined : objectSchema(where, 'outputSchema', def.outputSchema);
  const definition = clean({
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: { $schema: JSON_SCHEMA_DIALECT, ...inputSchema },
    outputSchema,
    annotations: withPolicyHints(def.annotations, def.policies),
    execution: taskSupport === 'forbidden' ? undefined : { taskSupport },
    icons: def.icons,
    _meta: def._meta,
  });
  try {
    paramHeaders(definition.inputSchema);
  } catch (error) {
    throw new InvalidDefinitionError(where, (error as Error).message);
  }
  return {
    ...ref(
      'tool',
      `app.addTool("${def.name}")`,
      { kind: 'tool', name: def.name, annotations: def.annotations, _meta: def._meta },
      def,
      false,
      (args) => handler(args[0], args[1]),
    ),
    name: def.name,
    definition: deepFreeze(definition),
    validate: compile(where, 'inputSchema', inputSchema),
    validateOutput: outputSchema && compile(where, 'outputSchema', outputSchema),
    taskSupport,
    streaming: handler.constructor.name === 'AsyncGeneratorFunction',
    tags: def.tags && Object.freeze([...def.tags]),
  };
}

/** A resource or template registered at runtime. */
export function dynamicResource(def: DynamicResource): { resource: ResourceDescriptor } | { template: TemplateDescriptor } {
  if (typeof def !== 'object' || def === null) throw new InvalidDefinitionError('addResource', 'expects a definition object');
  const isTemplate = 'uriTemplate' in def && def.uriTemplate !== undefined;
  const where = isTemplate ? `resource template "${String(def.uriTemplate)}"` : `resource "${String((def as { uri?: unknown }).uri)}"`;
  if (typeof def.name !== 'string' || def.name.length === 0) throw new InvalidDefinitionError(where, 'name must be a non-empty string');
  const handler = requireHandler(where, def.handler);
  const common = {
    name: def.name,
    title: def.title,
    description: def.description,
    mimeType: def.mimeType,
    annotations: def.annotations,
    icons: def.icons,
    _meta: def._meta,
  };
  const target = {
    kind: isTemplate ? ('template' as const) : ('resource' as const),
    name: def.name,
    annotations: def.annotations,
    _meta: def._meta,
  };
  if (!isTemplate) {
    const { uri, size } = def as { uri?: unknown; size?: number };
    if (typeof uri !== 'string' || !URI.test(uri)) throw new InvalidDefinitionError(where, 'uri must be an absolute URI (scheme:rest)');
    const definition = deepFreeze(clean({ uri, ...common, size }));
    return {
      resource: {
        ...ref('resource', `app.addResource("${uri}")`, target, def, true, (args) => handler(args[0], undefined)),
        uri,
        definition,
        cache: def.cache,
      },
    };
  }
  const template = new UriTemplate(def.uriTemplate);
  const completers = completersOf(where, def.complete, template.variableNames, 'variable');
  const definition = deepFreeze(clean({ uriTemplate: template.template, ...common }));
  return {
    template: {
      ...ref('resource', `app.addResource("${template.template}")`, target, def, false, (args) => handler(args[0], args[1])),
      template,
      definition,
      completers,
      cache: def.cache,
    },
  };
}

/** A prompt registered at runtime: required arguments are checked before the handler runs. */
export function dynamicPrompt(def: DynamicPrompt): PromptDescriptor {
  if (typeof def !== 'object' || def === null) throw new InvalidDefinitionError('addPrompt', 'expects a definition object');
  const where = `prompt "${String(def.name)}"`;
  if (typeof def.name !== 'string' || def.name.length === 0) throw new InvalidDefinitionError(where, 'name must be a non-empty string');
  const handler = requireHandler(where, def.handler);
  const args = def.arguments ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a?.name !== 'string' || a.name.length === 0))
    throw new InvalidDefinitionError(where, 'arguments must be a list of { name, description?, required? }');
  const names = args.map((a) => a.name);
  if (new Set(names).size !== names.length) throw new InvalidDefinitionError(where, 'an argument is declared twice');
  const required = args.filter((a) => a.required).map((a) => a.name);
  const validate: InputCheck = (input) => {
    const given = input as Record<string, unknown>;
    const missing = required.filter((n) => !Object.prototype.hasOwnProperty.call(given, n) || given[n] === undefined);
    return missing.length === 0 ? { ok: true, value: given } : { ok: false, issues: missing.map((n) => `${n}: is required (required)`) };
  };
  const definition = deepFreeze(
    clean({
      name: def.name,
      title: def.title,
      description: def.description,
      arguments: args.length > 0 ? args.map((a) => clean({ ...a })) : undefined,
      icons: def.icons,
      _meta: def._meta,
    }),
  );
  return {
    ...ref('prompt', `app.addPrompt("${def.name}")`, { kind: 'prompt', name: def.name, _meta: def._meta }, def, false, (a) =>
      handler(a[0], a[1]),
    ),
    name: def.name,
    definition,
    validate,
    completers: completersOf(where, def.complete, names, 'argument'),
  };
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

function ref(
  kind: HandlerKind,
  where: string,
  target: Pick<HandlerAccess, 'kind' | 'name' | 'annotations' | '_meta'>,
  access: DynamicAccess,
  contextFirst: boolean,
  run: (args: unknown[]) => unknown,
) {
  return { kind, provider: undefined, method: '', where, contextFirst, access: accessOf(where, target, access), run };
}

function accessOf(
  where: string,
  target: Pick<HandlerAccess, 'kind' | 'name' | 'annotations' | '_meta'>,
  access: DynamicAccess,
): HandlerAccess {
  return accessFromOptions(target, access, (problem) => new InvalidDefinitionError(where, problem));
}

function requireHandler<F>(where: string, handler: F): F & ((...args: unknown[]) => unknown) {
  if (typeof handler !== 'function') throw new InvalidDefinitionError(where, 'handler must be a function');
  return handler as F & ((...args: unknown[]) => unknown);
}

function objectSchema(where: string, member: string, schema: JsonSchemaObject): JsonSchemaObject {
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object')
    throw new InvalidDefinitionError(where, `${member} must be a JSON Schema with type "object"`);
  return structuredClone(schema);
}

function compile(where: string, member: string, schema: JsonSchemaObject): InputCheck {
  try {
    return compileJsonSchema(schema, member === 'outputSchema' ? 'output' : 'arguments');
  } catch (error) {
    throw new InvalidDefinitionError(where, `${member} is not a valid JSON Schema: ${(error as Error).message}`);
  }
}

function completersOf(
  where: string,
  complete: Record<string, DynamicCompleter> | undefined,
  names: readonly string[],
  noun: string,
): Map<string, CompleterDescriptor> {
  const completers = new Map<string, CompleterDescriptor>();
  for (const [argument, fn] of Object.entries(complete ?? {})) {
    if (!names.includes(argument))
      throw new UnknownCompletionTargetError(`complete of ${where}`, `${where} has no ${noun} "${argument}"`, false);
    const run = requireHandler(`${where} completer of "${argument}"`, fn);
    completers.set(argument, {
      ...ref('completion', `${where} completer of "${argument}"`, { kind: 'completion', name: argument }, {}, false, (a) =>
        run(a[0] as string, a[1] as never),
      ),
      argument,
    });
  }
  return completers;
}
