import { plainToInstance, Type } from 'class-transformer';
import { MissingNestedTypeError } from '../errors/missing-nested-type.error';

type Ctor = abstract new (...args: never[]) => unknown;
type TransformerCtor = Parameters<typeof plainToInstance>[0];

const NOT_NESTED: unknown[] = [Object, Array, String, Number, Boolean, Date, Function, Promise, Symbol, BigInt, Map, Set];

/**
 * The class class-transformer turns a property's value into, found through its public API: convert a
 * probe (`{ [property]: {} }`, or `[{}]` for an array) and look at what comes out. This reads `@Type`
 * from the very class-transformer build that converts input later (CommonJS or ESM), where reading
 * its private storage by path would read the CommonJS copy only.
 */
export function transformedClass(cls: Ctor, property: string, asArray: boolean): Ctor | undefined {
  let converted: unknown;
  try {
    converted = (plainToInstance(cls as unknown as TransformerCtor, { [property]: asArray ? [{}] : {} }) as Record<string, unknown>)[
      property
    ];
  } catch {
    return undefined; // a constructor or @Transform that refuses the probe: nothing to learn from it
  }
  const sample: unknown = asArray ? (Array.isArray(converted) ? converted[0] : undefined) : converted;
  if (typeof sample !== 'object' || sample === null || sample.constructor === Object) return undefined;
  return sample.constructor as Ctor;
}

/**
 * The class of a `@ValidateNested` property. `@Type(() => X)` wins; without it a single value's class
 * comes from `design:type`, and `@Type` is recorded for it so that class-transformer really builds an
 * instance (else class-validator would see a plain object, find no rules and let anything through).
 * Arrays, interface-typed properties and code compiled without decorator metadata carry no class at
 * runtime: a definition error asks for `@Type`.
 */
export function nestedClass(cls: Ctor, property: string, designType: unknown, asArray: boolean): Ctor | undefined {
  const declared = transformedClass(cls, property, asArray);
  if (declared) return declared;
  if (asArray) throw new MissingNestedTypeError(cls.name, property, 'is on an array, whose element class is not known at runtime');
  if (designType === undefined) {
    throw new MissingNestedTypeError(
      cls.name,
      property,
      'is on a property whose type was not emitted (compiled without emitDecoratorMetadata: esbuild-based runners such as tsx and vitest never emit it)',
    );
  }
  if (designType === Object) {
    throw new MissingNestedTypeError(
      cls.name,
      property,
      'is on a property typed with an interface, a type literal or `any` (nothing of it is left at runtime)',
    );
  }
  if (typeof designType !== 'function' || designType.prototype === undefined || NOT_NESTED.includes(designType)) return undefined;
  const inferred = designType as Ctor;
  Type(() => inferred)((cls as unknown as { prototype: object }).prototype, property);
  return inferred;
}
