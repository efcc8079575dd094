import { getMetadataStorage, type MetadataStorage, ValidationTypes } from 'class-validator';
import { metadataStore } from '../metadata/metadata-store';
import type { FieldOptions } from '../metadata/records';
import type { JsonSchemaObject } from '../mcp/mcp-types';
import { mcpHeaderOf, X_MCP_HEADER } from './mcp-header';
import { nestedClass, transformedClass } from './nested-type';

export type JsonSchema = Record<string, unknown>;
type Ctor = abstract new (...args: never[]) => unknown;
type Rule = (schema: JsonSchema, constraints: unknown[]) => void;
/** One decorator's record, as class-validator's public metadata storage hands it out. */
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/** class-validator constraint name -> what it says in JSON Schema. Unknown validators add nothing. */
const RULES: Record<string, Rule> = {
  isString: (s) => setType(s, 'string'),
  isNumber: (s) => setType(s, 'number'),
  isInt: (s) => setType(s, 'integer'),
  isBoolean: (s) => setType(s, 'boolean'),
  isArray: (s) => setType(s, 'array'),
  isObject: (s) => setType(s, 'object'),
  isEnum: (s, c) => setEnum(s, Array.isArray(c[1]) ? (c[1] as unknown[]) : enumValues(c[0])),
  isIn: (s, c) => setEnum(s, c[0] as unknown[]),
  equals: (s, c) => void (s.const = c[0]),
  isNotEmpty: (s) => void (s.type === 'string' ? (s.minLength = Math.max(1, Number(s.minLength ?? 0))) : undefined),
  minLength: (s, c) => void (s.minLength = c[0]),
  maxLength: (s, c) => void (s.maxLength = c[0]),
  isLength: (s, c) => {
    if (typeof c[0] === 'number') s.minLength = c[0];
    if (typeof c[1] === 'number') s.maxLength = c[1];
  },
  min: (s, c) => void (s.minimum = c[0]),
  max: (s, c) => void (s.maximum = c[0]),
  isPositive: (s) => void (s.exclusiveMinimum = 0),
  isNegative: (s) => void (s.exclusiveMaximum = 0),
  matches: (s, c) => {
    const re = c[0];
    s.pattern = re instanceof RegExp ? re.source : String(re);
  },
  isEmail: (s) => setFormat(s, 'email'),
  isUrl: (s) => setFormat(s, 'uri'),
  isUUID: (s) => setFormat(s, 'uuid'),
  isISO8601: (s) => setFormat(s, 'date-time'),
  isDateString: (s) => setFormat(s, 'date-time'),
  isIP: (s, c) => setFormat(s, c[0] === 6 || c[0] === '6' ? 'ipv6' : 'ipv4'),
  arrayMinSize: (s, c) => void (s.minItems = c[0]),
  arrayMaxSize: (s, c) => void (s.maxItems = c[0]),
  arrayNotEmpty: (s) => void (s.minItems = Math.max(1, Number(s.minItems ?? 0))),
  arrayUnique: (s) => void (s.uniqueItems = true),
};

/** Rules that describe the array itself even when given with `{ each: true }`. */
const ARRAY_RULES = new Set(['isArray', 'arrayMinSize', 'arrayMaxSize', 'arrayNotEmpty', 'arrayUnique']);

function setType(s: JsonSchema, type: string): void {
  s.type = type;
}
function setFormat(s: JsonSchema, format: string): void {
  s.type ??= 'string';
  s.format = format;
}
function enumValues(e: unknown): unknown[] {
  // Numeric TS enums also map numbers back to names; keep the named members only.
  return Object.entries(e as Record<string, unknown>)
    .filter(([key]) => Number.isNaN(Number.parseInt(key, 10)))
    .map(([, value]) => value);
}
function setEnum(s: JsonSchema, values: unknown[]): void {
  s.enum = [...values];
  const types = new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
  if (types.size === 1) s.type = [...types][0];
  else if ([...types].every((t) => t === 'integer' || t === 'number')) s.type = 'number';
}

/** True when a class carries class-validator metadata or `@Field` records. */
export function hasInputMetadata(cls: Ctor): boolean {
  return propertyMetadata(cls).size > 0;
}

function propertyMetadata(cls: Ctor): Map<string, { validations: ValidationMetadata[]; field: FieldOptions }> {
  const props = new Map<string, { validations: ValidationMetadata[]; field: FieldOptions }>();
  const entry = (p: string) => {
    let e = props.get(p);
    if (!e) props.set(p, (e = { validations: [], field: {} }));
    return e;
  };
  const validations = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  for (const v of validations) {
    if (v.type === ValidationTypes.WHITELIST) entry(v.propertyName);
    else entry(v.propertyName).validations.push(v);
  }
  for (const f of metadataStore.collect(cls).fields) Object.assign(entry(f.property).field, f.options);
  return props;
}

/**
 * Derives JSON Schema (2020-12 dialect, root `type: "object"`) from class-validator metadata. One
 * builder per registry build: nested classes are inlined, and a class that contains itself is
 * emitted once under `$defs` and referenced.
 */
export class JsonSchemaBuilder {
  private readonly stack: Ctor[] = [];
  private readonly recursive = new Set<Ctor>();
  private defs = new Map<string, JsonSchema>();

  build(cls: Ctor): JsonSchemaObject {
    this.recursive.clear();
    this.defs = new Map();
    const root = this.objectSchema(cls, true) as JsonSchemaObject;
    for (let pending = [...this.recursive], i = 0; i < pending.length; i++) {
      const c = pending[i];
      this.stack.push(c);
      this.defs.set(c.name, this.inline(c));
      this.stack.pop();
      for (const r of this.recursive) if (!pending.includes(r)) pending.push(r);
    }
    if (this.defs.size > 0) root.$defs = Object.fromEntries(this.defs);
    return root;
  }

  private objectSchema(cls: Ctor, root = false): JsonSchema {
    const named = root ? undefined : metadataStore.schema(cls)?.definition;
    if (named) {
      if (!this.defs.has(named)) {
        this.defs.set(named, {}); // placeholder: a class that contains itself refers to it
        this.stack.push(cls);
        this.defs.set(named, this.inline(cls));
        this.stack.pop();
      }
      return { $ref: `#/$defs/${named}` };
    }
    if (this.stack.includes(cls)) {
      this.recursive.add(cls);
      return { $ref: `#/$defs/${cls.name}` };
    }
    this.stack.push(cls);
    const schema = this.inline(cls);
    this.stack.pop();
    return schema;
  }

  private inline(cls: Ctor): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [name, meta] of propertyMetadata(cls)) {
      const optional = meta.validations.some((v) => v.type === ValidationTypes.CONDITIONAL_VALIDATION && v.name === 'isOptional');
      properties[name] = this.propertySchema(cls, name, meta.validations, meta.field);
      if (!optional) required.push(name);
    }
    const options = metadataStore.schema(cls);
    const schema: JsonSchema = { type: 'object' };
    if (options?.title !== undefined) schema.title = options.title;
    if (options?.description !== undefined) schema.description = options.description;
    schema.properties = properties;
    if (required.length > 0) schema.required = required;
    if (options?.additionalProperties !== undefined) schema.additionalProperties = options.additionalProperties;
    return schema;
  }

  private propertySchema(cls: Ctor, name: string, validations: ValidationMetadata[], field: FieldOptions): JsonSchema {
    const designType = Reflect.getMetadata?.('design:type', cls.prototype as object, name) as unknown;
    const eachRule = validations.some((v) => v.each && !ARRAY_RULES.has(v.name ?? ''));
    // Without design:type (no decorator metadata), @IsArray() or an `each` rule is what says "array".
    const isArray = designType === Array || eachRule || (designType === undefined && validations.some((v) => v.name === 'isArray'));
    const schema: JsonSchema = isArray ? { type: 'array' } : this.typeOf(designType);
    const target: JsonSchema = isArray ? {} : schema;
    for (const v of validations) {
      const into = v.each && !ARRAY_RULES.has(v.name ?? '') ? target : schema;
      if (v.type === ValidationTypes.NESTED_VALIDATION) {
        const nested = nestedClass(cls, name, designType, isArray || v.each === true);
        if (nested) Object.assign(isArray ? target : schema, this.objectSchema(nested));
      } else if (v.type === ValidationTypes.CUSTOM_VALIDATION && v.name && RULES[v.name]) {
        RULES[v.name](into, v.constraints ?? []);
      }
    }
    if (isArray) {
      const nested = Object.keys(target).length === 0 ? transformedClass(cls, name, true) : undefined;
      schema.items = nested ? this.objectSchema(nested) : target;
    }
    annotate(schema, field);
    const header = mcpHeaderOf(cls, name);
    if (header !== undefined) schema[X_MCP_HEADER] = header;
    return schema;
  }

  private typeOf(designType: unknown): JsonSchema {
    if (designType === String) return { type: 'string' };
    if (designType === Number) return { type: 'number' };
    if (designType === Boolean) return { type: 'boolean' };
    if (designType === Date) return { type: 'string', format: 'date-time' };
    return {};
  }
}

function annotate(schema: JsonSchema, field: FieldOptions): void {
  if (field.title !== undefined) schema.title = field.title;
  if (field.description !== undefined) schema.description = field.description;
  if (field.default !== undefined) schema.default = field.default;
  if (field.examples !== undefined) schema.examples = field.examples;
  if (field.format !== undefined) schema.format = field.format;
}
