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
