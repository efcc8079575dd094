type Json = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A TypeScript identifier made of a name's letters and digits, PascalCase (`weather-now` -> `WeatherNow`). */
export function typeName(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return joined === '' ? 'Unnamed' : /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/**
 * Declarations (`export interface` / `export type`) for JSON Schemas, as mcpkit's schema builder writes
 * them: objects with properties and required, arrays, enums and consts, primitives and type lists,
 * anyOf/oneOf/allOf, nested objects, additionalProperties, and `$ref`s into the root's `$defs`.
 * Each `$defs` entry becomes its own declaration, shared between roots when it is the same schema.
 */
export class TypeScriptDeclarations {
  private readonly blocks: string[] = [];
  private readonly taken = new Map<string, string>(); // declared name -> the JSON of its schema

  /** Declares `name` as the type of `schema`; returns the name used (suffixed when taken by a different schema). */
  declare(name: string, schema: Json, comment?: string): string {
    const defs = this.declareDefs(schema);
    const declared = this.reserve(name, schema);
    if (declared.fresh) this.blocks.push(declaration(declared.name, schema, defs, comment));
    return declared.name;
  }

  /** Adds a declaration written by the caller (e.g. a union of declared names). */
  raw(text: string): void {
    this.blocks.push(text);
  }

  /** A name not declared yet, for callers that write their own declaration. */
  freeName(name: string): string {
    let candidate = name;
    for (let n = 2; this.taken.has(candidate); n++) candidate = `${name}${n}`;
    this.taken.set(candidate, '');
    return candidate;
  }

  text(): string {
    return this.blocks.join('\n\n') + '\n';
  }

  private declareDefs(schema: Json): Map<string, string> {
    const defs = (schema.$defs ?? schema.definitions ?? {}) as Record<string, Json>;
    const names = new Map<string, string>();
    // Names first, so that definitions can refer to one another (and to themselves).
    const reserved = Object.entries(defs).map(([key, def]) => {
      const r = this.reserve(typeName(key), def);
      names.set(key, r.name);
      return { def, ...r };
    });
    for (const { def, name, fresh } of reserved) if (fresh) this.blocks.push(declaration(name, def, names));
    return names;
  }

  private reserve(name: string, schema: Json): { name: string; fresh: boolean } {
    const { $defs: _d, definitions: _o, $schema: _s, ...shape } = schema;
    const key = JSON.stringify(shape);
    let candidate = name;
    for (let n = 2; this.taken.has(candidate); n++) {
      if (this.taken.get(candidate) === key) return { name: candidate, fresh: false };
      candidate = `${name}${n}`;
    }
    this.taken.set(candidate, key);
    return { name: candidate, fresh: true };
  }
}

function declaration(name: string, schema: Json, defs: Map<string, string>, comment?: string): string {
  const doc = docComment(
    [comment, schema.description as string | undefined].filter((c): c is string => typeof c === 'string' && c !== '').join('\n\n'),
    '',
  );
  if (isPlainObject(schema)) return `${doc}export interface ${name} ${objectBody(schema, defs, '')}`;
  return `${doc}export type ${name} = ${typeOf(schema, defs, '')};`;
}

/** An object schema that reads as an interface: `type: 'object'` with no union or intersection beside it. */
function isPlainObject(schema: Json): boolean {
  return schema.type === 'object' && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.$ref;
}

function typeOf(schema: unknown, defs: Map<string, string>, indent: string): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema !== 'object' || schema === null) return 'unknown';
  const s = schema as Json;
  if (typeof s.$ref === 'string') {
    const key = s.$ref.replace(/^#\/(\$defs|definitions)\//, '');
    return defs.get(key) ?? 'unknown';
  }
  if ('const' in s) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.length === 0 ? 'never' : s.enum.map(literal).join(' | ');
  const parts: string[] = [];
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf))
    parts.push(union(((s.anyOf ?? s.oneOf) as unknown[]).map((m) => typeOf(m, defs, indent))));
  if (Array.isArray(s.allOf)) parts.push((s.allOf as unknown[]).map((m) => wrap(typeOf(m, defs, indent))).join(' & '));
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    parts.push(union(types.map((t) => primitive(t, s, defs, indent))));
  }
  if (parts.length === 0) return 'unknown';
  return parts.length === 1 ? parts[0] : parts.map(wrap).join(' & ');
}

function primitive(type: string, s: Json, defs: Map<string, string>, indent: string): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return Array.isArray(s.prefixItems)
        ? `[${(s.prefixItems as unknown[]).map((m) => typeOf(m, defs, indent)).join(', ')}]`
        : `${wrap(typeOf(s.items, defs, indent))}[]`;
    case 'object':
      return objectBody(s, defs, indent);
    default:
      return 'unknown';
  }
}

function objectBody(s: Json, defs: Map<string, string>, indent: string): string {
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const extra = s.additionalProperties;
  const names = Object.keys(properties);
  if (names.length === 0)
    return extra === false ? 'Record<string, never>' : `Record<string, ${typeOf(extra === undefined ? true : extra, defs, indent)}>`;
  const inner = indent + '  ';
  const lines = names.map((name) => {
    const prop = properties[name];
    const description = typeof prop === 'object' && prop !== null ? (prop as Json).description : undefined;
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    return `${docComment(typeof description === 'string' ? description : '', inner)}${inner}${key}${required.has(name) ? '' : '?'}: ${typeOf(prop, defs, inner)};`;
  });
  // A schema for the other members; `unknown`, because an index signature must admit every named member.
  if (extra !== undefined && extra !== false) lines.push(`${inner}[key: string]: unknown;`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  return unique.length === 1 ? unique[0] : unique.map(wrap).join(' | ');
}

/** Parenthesizes a union or intersection, so that `[]`, `|` and `&` bind as meant. */
function wrap(type: string): string {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '/' && type[i + 1] === '*')
      i = type.includes('*/', i + 2) ? type.indexOf('*/', i + 2) + 1 : type.length; // a doc comment's text is not code
    else if (c === '"') quote = c;
    else if ('{[(<'.includes(c)) depth++;
    else if ('}])>'.includes(c)) depth--;
    else if (depth === 0 && (c === '|' || c === '&')) return `(${type})`;
  }
  return type;
}

function literal(value: unknown): string {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? JSON.stringify(value) : 'unknown';
}

/** `text` as a JSDoc comment (its own `*\/` escaped), each line prefixed by `indent`; nothing for empty text. */
export function docComment(text: string, indent = ''): string {
  if (text === '') return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`;
}
