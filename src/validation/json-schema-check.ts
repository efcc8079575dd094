import type { ErrorObject, ValidateFunction } from 'ajv';
import { hostileShape } from './validate-input';

/** A compiled check of untrusted input (a JSON Schema compiled once): the value to use, or the issues. */
export type InputCheck = (input: unknown) => { ok: true; value: unknown } | { ok: false; issues: string[] };

type AjvInstance = { compile(schema: object): ValidateFunction; removeSchema(schema: object): unknown };
let shared: AjvInstance | undefined;

/**
 * One Ajv instance (JSON Schema 2020-12, formats on), created on first use: a server without
 * schema-defined tools never loads Ajv. Shared by the applications of a process as a tool, not as a
 * store: its options never change, and each (synchronous) compile removes the schema it registered, so
 * no application resolves another's schema or `$id`.
 */
function ajv(): AjvInstance {
  if (!shared) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Ajv2020 = (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const addFormats = (require('ajv-formats') as typeof import('ajv-formats')).default;
    const instance = new Ajv2020({ allErrors: true, strict: false, validateSchema: true });
    addFormats(instance);
    shared = instance;
  }
  return shared;
}

/**
 * Compiles a JSON Schema into a check, once. Throws (with Ajv's reason) when the schema itself is
 * invalid, so that a bad definition fails where it is registered, not on the first call. Issues read
 * `path: message (keyword)`, like those of class-validator inputs, so a model can correct its call.
 */
export function compileJsonSchema(schema: object, role: 'arguments' | 'output' = 'arguments'): InputCheck {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  const instance = ajv();
  let validate: ValidateFunction;
  try {
    validate = instance.compile(rest);
  } finally {
    // The compiled function is all that is kept: Ajv's cache (and an `$id` it registered) would grow with
    // every definition and refuse the same `$id` twice (an update, a second tool sharing the schema).
    try {
      instance.removeSchema(rest);
    } catch {
      // nothing was registered (compile failed first): its error is the one to report
    }
  }
  const properties = (rest as { properties?: unknown }).properties;
  const parameters = role === 'arguments' && typeof properties === 'object' && properties !== null ? Object.keys(properties) : undefined;
  return (input) => {
    // What breaks the libraries reading input (nesting past MAX_INPUT_DEPTH, prototype keys) is refused first, as for input classes.
    const hostile = hostileShape(input);
    if (hostile) return { ok: false, issues: [hostile] };
    if (validate(input)) return { ok: true, value: input };
    return { ok: false, issues: (validate.errors ?? []).map((error) => describe(error, parameters)) };
  };
}

/** Issues name the path; a missing member reads `is required`, and an unknown top-level one lists the parameters. */
function describe(error: ErrorObject, parameters: string[] | undefined): string {
  let path = error.instancePath.split('/').slice(1).map(unescape).join('.');
  const top = path === '';
  if (error.keyword === 'required') {
    path = path ? `${path}.${String(error.params.missingProperty)}` : String(error.params.missingProperty);
    return `${path}: is required (required)`;
  }
  if (error.keyword === 'additionalProperties') {
    path = path ? `${path}.${String(error.params.additionalProperty)}` : String(error.params.additionalProperty);
    if (!top || !parameters) return `${path}: is not a known property (additionalProperties)`;
    const known = parameters.length > 0 ? `its parameters are ${parameters.join(', ')}` : 'it takes none';
    return `${path}: is not a parameter of this tool; ${known} (additionalProperties)`;
  }
  return `${path || 'arguments'}: ${error.message ?? 'is invalid'} (${error.keyword})`;
}

const unescape = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
