import { McpDefinitionError } from '../errors/mcp-definition.error';
import { metadataStore } from '../metadata/metadata-store';
import type { FieldOptions } from '../metadata/records';
import { JsonSchemaBuilder, type JsonSchema } from './json-schema.builder';

type Ctor = abstract new (...args: never[]) => unknown;

const cache = new WeakMap<Ctor, Record<string, unknown>>();
const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The `requestedSchema` of a form elicitation, derived from a class-validator class: a flat object of
 * strings, numbers, integers, booleans, single-select enums (`@IsIn`/`@IsEnum`) and multi-select
 * enums (`@IsIn(values, { each: true })` on an array). `@Field({ enumNames })` makes an enum titled
 * (`oneOf`/`anyOf` of const and title), or the legacy `enumNames` form with `enumStyle: 'legacy'`.
 * Built once per class.
 */
export function elicitationSchema(cls: Ctor): Record<string, unknown> {
  let schema = cache.get(cls);
  if (!schema) {
    schema = build(cls);
    cache.set(cls, schema);
  }
  return schema;
}

function build(cls: Ctor): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = new JsonSchemaBuilder().build(cls) as JsonSchema;
  const fields = new Map<string, FieldOptions>();
  for (const f of metadataStore.collect(cls).fields) fields.set(f.property, { ...fields.get(f.property), ...f.options });
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, prop] of Object.entries(properties)) {
    const field = fields.get(name) ?? {};
    if (prop.type === 'array') {
      const items = (prop.items ?? {}) as JsonSchema;
      if (!Array.isArray(items.enum)) throw unsupported(cls, name, 'arrays must be multi-select enums (@IsIn(values, { each: true }))');
      if (field.enumNames) prop.items = { anyOf: titled(items.enum, field.enumNames, cls, name) };
      continue;
    }
    if (prop.type === undefined && Reflect.getMetadata?.('design:type', (cls as { prototype: object }).prototype, name) === undefined) {
      // Without decorator metadata (tsx, esbuild, vitest) a `name?: string` says nothing at runtime.
      throw unsupported(
        cls,
        name,
        'its type is unknown, as no decorator metadata was emitted: give it a type rule (@IsString(), @IsInt(), @IsNumber(), @IsBoolean(), @IsIn(…))',
      );
    }
    if (!PRIMITIVE_TYPES.has(prop.type as string))
      throw unsupported(cls, name, 'only strings, numbers, integers, booleans and enums can be asked for');
    if (Array.isArray(prop.enum) && field.enumNames) {
      if (field.enumStyle === 'legacy') {
        prop.enumNames = [...field.enumNames];
      } else {
        prop.oneOf = titled(prop.enum, field.enumNames, cls, name);
        delete prop.enum;
      }
    }
  }
  return schema;
}

function titled(values: unknown[], names: string[], cls: Ctor, property: string): { const: unknown; title: string }[] {
  if (names.length !== values.length) throw unsupported(cls, property, `enumNames has ${names.length} names for ${values.length} values`);
  return values.map((value, i) => ({ const: value, title: names[i] }));
}

function unsupported(cls: Ctor, property: string, problem: string): McpDefinitionError {
  return new McpDefinitionError(`Elicitation form ${cls.name}.${property}: ${problem}`);
}
