import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import type { JsonSchemaObject, PromptArgument } from '../mcp/mcp-types';
import { clean } from './definition-utils';

export function promptArguments(schema: JsonSchemaObject): PromptArgument[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const prop = p as { title?: string; description?: string };
    return clean({ name, title: prop.title, description: prop.description, required: required.has(name) });
  });
}

/** A verbatim input schema: a deep copy (the definition is frozen), which must describe an object. */
export function rawSchema(where: string, schema: JsonSchemaObject): JsonSchemaObject {
  if (typeof schema !== 'object' || schema === null || schema.type !== 'object')
    throw new InvalidDecoratorOptionsError('Tool', where, 'inputSchema must be a JSON Schema with type "object"');
  return structuredClone(schema);
}

/** A tool's `_meta` with its view members, `ui` merged with any `ui` given in `_meta`. */
export function withView(meta: Record<string, unknown> | undefined, view: Record<string, unknown>): Record<string, unknown> {
  const ui = { ...(meta?.ui as Record<string, unknown> | undefined), ...(view.ui as Record<string, unknown>) };
  return { ...meta, ...view, ui };
}

export function emptySchema(): JsonSchemaObject {
  return { type: 'object', properties: {} };
}

export function isClass(value: unknown): value is new (...args: never[]) => unknown {
  return typeof value === 'function' && value.prototype !== undefined;
}
