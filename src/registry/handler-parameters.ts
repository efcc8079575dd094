import { McpContext } from '../context/mcp-context';
import { InvalidHandlerSignatureError } from '../errors/invalid-handler-signature.error';
import { MissingDesignMetadataError } from '../errors/missing-design-metadata.error';

type ProviderClass = abstract new (...args: never[]) => unknown;

/** How mcpkit calls a handler: with the context alone, or with an input first; and which type that input has. */
export interface HandlerParameters {
  /** The method takes only the context: it is called as `method(ctx)`. */
  readonly contextFirst: boolean;
  /** The class named by the decorator's `input` option. */
  readonly declared?: unknown;
  /** The first parameter's design-time type, when the compiler emitted one (and it is not the context). */
  readonly designType?: unknown;
}

/**
 * Maps a handler's parameters to (input, context). The decorator's `input` option says it outright
 * (`null`: context only); otherwise the design-time parameter types do, when the compiler emitted
 * them. With neither, a method that has parameters is a definition error, unless its kind passes
 * something untyped first anyway (a template's variables, a completer's value): `untypedFirst`.
 */
export function handlerParameters(
  cls: ProviderClass,
  method: string,
  decorator: string,
  declared: unknown,
  untypedFirst: boolean,
): HandlerParameters {
  const where = `${cls.name}.${method}`;
  const fn = (cls.prototype as Record<string, unknown>)[method] as (...args: unknown[]) => unknown;
  const paramTypes = Reflect.getMetadata('design:paramtypes', cls.prototype as object, method) as unknown[] | undefined;
  if (paramTypes !== undefined) checkContextLast(where, method, paramTypes);
  if (paramTypes !== undefined && typeof declared === 'function') checkDeclaredMatches(where, method, declared, paramTypes);
  if (paramTypes === undefined && declared !== undefined) checkNamedOrder(where, method, declared, parameterNames(fn));
  if (declared === null) {
    const first = paramTypes?.[0];
    if (first !== undefined && first !== Object && !isContext(first)) {
      throw new InvalidHandlerSignatureError(
        where,
        `\`input: null\` says the method takes only the context, but its first parameter is typed ${typeName(first)}. ` +
          `Declare it as ${method}(ctx: McpContext), or pass \`input: ${typeName(first)}\`.`,
      );
    }
    return { contextFirst: true };
  }
  if (paramTypes === undefined) {
    if (declared !== undefined || fn.length === 0 || untypedFirst) return { contextFirst: false, declared };
    throw new MissingDesignMetadataError(where, decorator, !hasDesignMetadata(cls));
  }
  const contextFirst = isContext(paramTypes[0]);
  return { contextFirst, declared, designType: contextFirst ? undefined : paramTypes[0] };
}

function checkContextLast(where: string, method: string, paramTypes: unknown[]): void {
  if (isContext(paramTypes[0]) && paramTypes.length > 1) {
    const input = typeName(paramTypes[1]);
    throw new InvalidHandlerSignatureError(
      where,
      `the context is the first parameter, so mcpkit would pass the context there and nothing as ${input}. ` +
        `The input comes first and the context last: declare it as ${method}(input: ${input}, ctx: McpContext).`,
    );
  }
}

/** With design types: the `input` option names the class the first parameter is typed with (or a subclass of it). */
function checkDeclaredMatches(where: string, method: string, declared: unknown, paramTypes: unknown[]): void {
  const first = paramTypes[0];
  const input = typeName(declared);
  if (isContext(first)) {
    throw new InvalidHandlerSignatureError(
      where,
      `\`input: ${input}\` is declared, but the first parameter is the context, so the validated input would never reach the method. ` +
        `Declare it as ${method}(input: ${input}, ctx: McpContext), or pass \`input: null\` for a method that takes only the context.`,
    );
  }
  const classTyped = typeof first === 'function' && first !== Object && first.prototype !== undefined;
  const fits = declared === first || (classTyped && (declared as { prototype: unknown }).prototype instanceof (first as new () => unknown));
  if (classTyped && !fits) {
    throw new InvalidHandlerSignatureError(
      where,
      `\`input: ${input}\` is declared, but the first parameter is typed ${typeName(first)}: the method would receive a ${input} ` +
        `where it expects a ${typeName(first)}. Make them the same class.`,
    );
  }
}

/** The context's usual parameter names: a handler whose input comes first is called (input, ctx). */
const CONTEXT_NAME = /^_?(ctx|context|mcpContext)$/;
const SHORT_CONTEXT_NAME = /^_?ctx$/;

/**
 * Without design types (tsx, esbuild, vitest, bun without emitDecoratorMetadata) mcpkit cannot see a
 * parameter's type, but it can read the parameters' names: a context parameter where the input goes
 * is found here, at bootstrap, rather than as a crash on the first call.
 */
function checkNamedOrder(where: string, method: string, declared: unknown, names: string[] | undefined): void {
  if (names === undefined) return;
  if (declared === null) {
    if (names.length > 1)
      throw new InvalidHandlerSignatureError(
        where,
        `\`input: null\` says the method takes only the context, but it declares ${names.length} parameters (${names.join(', ')}): ` +
          `mcpkit would pass the context as ${names[0]} and nothing as the rest. Name the input class with \`input: YourClass\` ` +
          `and declare it as ${method}(input: YourClass, ctx: McpContext).`,
      );
    return;
  }
  const input = typeName(declared);
  const contextFirst =
    names.length > 1 ? CONTEXT_NAME.test(names[0]) && !CONTEXT_NAME.test(names[1]) : SHORT_CONTEXT_NAME.test(names[0] ?? '');
  if (!contextFirst) return;
  throw new InvalidHandlerSignatureError(
    where,
    `its first parameter is named ${names[0]}, but mcpkit passes the input (${input}) first and the context last, so ${names[0]} would ` +
      `receive the arguments. Declare it as ${method}(input: ${input}, ctx: McpContext)` +
      (names.length === 1 ? `, or pass \`input: null\` for a method that takes only the context.` : '.'),
  );
}

/**
 * The names of a function's parameters, read from its source; undefined when the source cannot be
 * read that way (native code, a destructured or computed parameter): then nothing is concluded.
 */
export function parameterNames(fn: (...args: unknown[]) => unknown): string[] | undefined {
  let source: string;
  try {
    source = Function.prototype.toString.call(fn);
  } catch {
    return undefined;
  }
  const open = source.indexOf('(');
  if (open < 0 || source.includes('[native code]')) return undefined;
  let depth = 0;
  let close = -1;
  for (let i = open; i < source.length && close < 0; i++) {
    const c = source[i];
    if (c === '"' || c === "'" || c === '`') return undefined; // a default value with text: not worth parsing
    if (c === '/' && (source[i + 1] === '/' || source[i + 1] === '*')) return undefined;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) close = i;
    }
  }
  if (close < 0) return undefined;
  const list = source.slice(open + 1, close).trim();
  if (list === '') return [];
  const names: string[] = [];
  for (const part of splitTopLevel(list)) {
    const name = /^(?:\.\.\.)?\s*([A-Za-z_$][\w$]*)\s*(?:=|$)/.exec(part.trim())?.[1];
    if (name === undefined) return undefined;
    names.push(name);
  }
  return names;
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  const last = list.slice(start);
  if (last.trim() !== '') parts.push(last);
  return parts;
}

/** Whether the compiler emitted any `design:*` metadata for the class: its constructor or any member. */
function hasDesignMetadata(cls: ProviderClass): boolean {
  const isDesign = (keys: unknown[]) => keys.some((k) => typeof k === 'string' && k.startsWith('design:'));
  if (isDesign(Reflect.getOwnMetadataKeys(cls))) return true;
  for (
    let proto: object | null = cls.prototype as object;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const key of Object.getOwnPropertyNames(proto)) if (isDesign(Reflect.getOwnMetadataKeys(proto, key))) return true;
  }
  return false;
}

export function isContext(value: unknown): boolean {
  return typeof value === 'function' && value.prototype !== undefined && (value === McpContext || value.prototype instanceof McpContext);
}

export function typeName(value: unknown): string {
  return typeof value === 'function' ? value.name || 'anonymous' : String(value);
}
