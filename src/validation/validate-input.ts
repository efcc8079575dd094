import { plainToInstance, TransformationType, Type } from 'class-transformer';
import { getMetadataStorage, validate, type ValidationError, type ValidatorOptions, validateSync } from 'class-validator';
import type { MaybePromise } from '../mcp/maybe-promise';
import { metadataStore } from '../metadata/metadata-store';
import { passesCheck } from './fast-check';

type Ctor = new (...args: never[]) => object;
type TransformerCtor = Parameters<typeof plainToInstance>[0];

export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; issues: string[] };

/**
 * What to do with members of the input that its class does not declare: `refuse` them (tool
 * arguments: the model hears which key is unknown and can correct its call) or `strip` them (output,
 * prompt arguments, URI variables). A class's `@JsonSchema({ additionalProperties })` overrides both.
 */
export type UnknownKeys = 'refuse' | 'strip';

/**
 * The one place where untrusted input becomes a class instance: class-transformer, then
 * class-validator. Each violation is reported as `path: message (constraint)` so that a model can
 * correct its call; a member the input lacks reads `is required`, whatever its type rules say.
 */
export async function validateInput<T extends object>(
  cls: Ctor,
  input: unknown,
  unknownKeys: UnknownKeys = 'strip',
): Promise<ValidationOutcome<T>> {
  return checkInput<T>(cls, input, unknownKeys);
}

/**
 * validateInput without a promise when the class's constraints are all synchronous (the common case):
 * the outcome itself then, else its promise. Never throws.
 */
export function checkInput<T extends object>(
  cls: Ctor,
  input: unknown,
  unknownKeys: UnknownKeys = 'strip',
): MaybePromise<ValidationOutcome<T>> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return { ok: false, issues: ['arguments: must be an object'] };
  }
  const hostile = input === undefined ? undefined : hostileShape(input);
  if (hostile) return { ok: false, issues: [hostile] };
  const plan = planFor(cls, unknownKeys);
  if (plan.copy && plan.refuse && input !== undefined) {
    const unknown = unknownKeysOf(input, plan.known);
    if (unknown) return { ok: false, issues: unknown.map((key) => unknownIssue(key, '', plan)) };
  }
  let instance: T;
  let errors: ValidationError[] | Promise<ValidationError[]>;
  try {
    instance = (plan.copy ? plan.copy(input ?? {}) : plainToInstance(cls as unknown as TransformerCtor, input ?? {})) as T;
    // Valid input, the usual case, passes the precomputed checks; class-validator words the issues otherwise.
    if (plan.passes?.(instance)) return { ok: true, value: instance };
    errors = plan.sync ? validateSync(instance, plan.options) : validate(instance, plan.options);
  } catch {
    return unreadable();
  }
  return errors instanceof Promise ? errors.then((e) => outcome(instance, e, plan), unreadable) : outcome(instance, errors, plan);
}

/** The input is what class-transformer or class-validator could not handle: the caller's mistake. */
function unreadable(): { ok: false; issues: string[] } {
  return { ok: false, issues: ['arguments: could not be read as the expected shape'] };
}

function outcome<T>(instance: T, errors: ValidationError[], plan: Plan): ValidationOutcome<T> {
  if (errors.length === 0) return { ok: true, value: instance };
  const issues: string[] = [];
  collect(errors, '', issues, plan);
  return { ok: false, issues };
}

/** The issue for a member the class does not declare; at the top level it names the members that are. */
function unknownIssue(key: string, prefix: string, plan: Plan): string {
  const path = prefix ? `${prefix}.${key}` : key;
  // Only tool arguments ('refuse') are parameters of a tool; a strict class elsewhere names the key alone.
  if (prefix || !plan.toolArguments) return `${path}: is not a known property (unknownProperty)`;
  const known = [...plan.known];
  return `${path}: is not a parameter of this tool; ${known.length > 0 ? `its parameters are ${known.join(', ')}` : 'it takes none'} (unknownArgument)`;
}

/** Deepest nesting accepted in input; deeper input is refused before anything recurses into it. */
export const MAX_INPUT_DEPTH = 64;

/**
 * The input's own keys its class does not declare, undefined when there are none. The loops over keys
 * on every call (here and in flatAndOrdinary) use for…in, which allocates nothing, not Object.keys.
 */
function unknownKeysOf(input: object, known: ReadonlySet<string>): string[] | undefined {
  let unknown: string[] | undefined;
  for (const key in input) if (Object.hasOwn(input, key) && !known.has(key)) (unknown ??= []).push(key);
  return unknown;
}

/** True for an object whose members are all scalars under keys that are not FORBIDDEN_KEYS. */
function flatAndOrdinary(value: object): boolean {
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if ((typeof item === 'object' && item !== null) || FORBIDDEN_KEYS.has(key)) return false;
  }
  return true;
}

/** Keys that reach into prototypes when class-transformer copies them (or that make it throw). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks input for what breaks the libraries that read it: nesting deeper than MAX_INPUT_DEPTH
 * (class-transformer recurses and overflows the stack) and prototype keys. Iterative, so the check
 * itself cannot overflow; returns the first problem as an issue, or undefined.
 */
export function hostileShape(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  // The usual arguments, a flat object of scalars with ordinary keys, are checked without allocating a stack.
  if (!Array.isArray(input) && flatAndOrdinary(input)) return undefined;
  // Only objects and arrays are stacked.
  const stack: { value: object; path: string; depth: number }[] = [{ value: input, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (depth > MAX_INPUT_DEPTH) return `${path || 'arguments'}: nested deeper than ${MAX_INPUT_DEPTH} levels (maxDepth)`;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object' && item !== null)
          stack.push({ value: item, path: path ? `${path}.${i}` : String(i), depth: depth + 1 });
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      const nested = typeof item === 'object' && item !== null;
      if (!nested && !FORBIDDEN_KEYS.has(key)) continue;
      const at = path ? `${path}.${key.length > 64 ? `${key.slice(0, 64)}…` : key}` : key;
      if (FORBIDDEN_KEYS.has(key)) return `${at}: the key "${key}" is not allowed (forbiddenKey)`;
      stack.push({ value: item as object, path: at, depth: depth + 1 });
    }
  }
  return undefined;
}

interface Plan {
  options: ValidatorOptions;
  /** Unknown members are refused (else stripped). */
  refuse: boolean;
  /** Validating a tool's arguments (`unknownKeys: 'refuse'`): issues speak of the tool's parameters. */
  toolArguments: boolean;
  /** The members the class declares. */
  known: ReadonlySet<string>;
  /** No asynchronous constraint anywhere: the synchronous validator gives the same answer, cheaper. */
  sync: boolean;
  /** A direct copy of the known members, for classes class-transformer would do nothing special for. */
  copy?: (input: object) => object;
  /** True when the copied instance meets every constraint (see fast-check); false means "ask class-validator". */
  passes?: (instance: object) => boolean;
}

const plans: Record<UnknownKeys, WeakMap<Ctor, Plan>> = { refuse: new WeakMap(), strip: new WeakMap() };

/**
 * How to turn input into an instance of `cls`, worked out once per class. Without class-transformer
 * metadata (no @Type, @Transform, @Expose or @Exclude) plainToInstance only copies members, so the
 * known members are copied directly (unknown ones are refused before, or stripped by not copying them).
 */
function planFor(cls: Ctor, unknownKeys: UnknownKeys): Plan {
  let plan = plans[unknownKeys].get(cls);
  if (plan) return plan;
  const declared = metadataStore.schema(cls)?.additionalProperties;
  const refuse = declared === undefined ? unknownKeys === 'refuse' : declared === false;
  const options: ValidatorOptions = {
    whitelist: true,
    forbidNonWhitelisted: refuse,
    forbidUnknownValues: false,
    validationError: { target: false },
  };
  const target = cls as unknown as new () => unknown;
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(target, '', true, false);
  const properties = [...new Set(metadatas.map((m) => m.propertyName))];
  // Nested classes are not inspected: any nested validation keeps the general (asynchronous) path.
  const sync = metadatas.every(
    (m) =>
      m.type !== 'nestedValidation' &&
      m.type !== 'promiseValidation' &&
      !(m.constraintCls && storage.getTargetValidatorConstraints(m.constraintCls).some((c) => c.async)),
  );
  const transformerFree = copiedByTransformer(cls, properties) ?? copiesVerbatim(cls, properties);
  const Class = cls as unknown as new () => Record<string, unknown>;
  const copy = transformerFree;
  plan = {
    options,
    refuse,
    toolArguments: unknownKeys === 'refuse',
    known: new Set(properties),
    sync,
    // Only over a copy: it holds the known members alone (unknown ones are refused before the copy, see
    // checkInput, or stripped by it), so class-validator's whitelist has nothing to strip or refuse.
    passes: copy && sync ? passesCheck(metadatas, storage) : undefined,
    copy: copy
      ? (input) => {
          const instance = new Class();
          for (const p of properties) if (Object.hasOwn(input, p)) instance[p] = (input as Record<string, unknown>)[p];
          return instance;
        }
      : undefined,
  };
  plans[unknownKeys].set(cls, plan);
  return plan;
}

/** The parts of class-transformer's metadata storage that validate-input reads. */
interface TransformerStorage {
  getStrategy(target: Ctor): string;
  getExposedMetadatas(target: Ctor): unknown[];
  getExcludedMetadatas(target: Ctor): unknown[];
  findTypeMetadata(target: Ctor, property: string): unknown;
  findTransformMetadatas(target: Ctor, property: string, type: TransformationType): unknown[];
}

let storage: TransformerStorage | null | undefined;

/**
 * class-transformer's metadata storage, when it is the one its own decorators and plainToInstance use; null
 * otherwise. The storage is not part of class-transformer's public API: its path reaches the CommonJS build
 * only, while a bundle (or a loader that prefers the package's `module` field) may run the esm5 build, whose
 * storage is another object. So it is trusted only once a member marked with the imported `@Type` is found in
 * it; where it is not, callers fall back to the public API (plainToInstance). The one read of a path inside
 * class-transformer in src/ (test/unit/schema/class-transformer-api.spec.ts).
 */
function transformerStorage(): TransformerStorage | null {
  if (storage !== undefined) return storage;
  storage = null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a path inside the package, checked below
    const candidate = (require('class-transformer/cjs/storage') as { defaultMetadataStorage?: Partial<TransformerStorage> })
      .defaultMetadataStorage;
    class Probe {
      member?: unknown;
    }
    Type(() => Object)(Probe.prototype, 'member');
    const methods = ['getStrategy', 'getExposedMetadatas', 'getExcludedMetadatas', 'findTypeMetadata', 'findTransformMetadatas'] as const;
    if (candidate && methods.every((m) => typeof candidate[m] === 'function') && candidate.findTypeMetadata!(Probe, 'member')) {
      storage = candidate as TransformerStorage;
    }
  } catch {
    // another layout of the package, or reflect-metadata missing: the public API decides
  }
  return storage;
}

/**
 * True when class-transformer's metadata shows plainToInstance would only copy the given members of `cls`:
 * none of @Type, @Transform, @Expose or @Exclude on the class or its ancestors, and each member a plain
 * field (not defined by the prototype, not a method). Undefined otherwise, or when the storage cannot be
 * read: copiesVerbatim's probes then decide, as they did for every class before. Found this way, a
 * server's first call does not compile class-transformer's transformer (issue 22: 3.2M of the ~52M
 * instructions a stdio server's start added to its peers, bench/start-instructions.ts).
 */
function copiedByTransformer(cls: Ctor, properties: string[]): true | undefined {
  const found = transformerStorage();
  if (!found) return undefined;
  if (found.getStrategy(cls) !== 'none' || found.getExposedMetadatas(cls).length > 0 || found.getExcludedMetadatas(cls).length > 0)
    return undefined;
  let blank: Record<string, unknown>;
  try {
    blank = new (cls as unknown as new () => Record<string, unknown>)();
  } catch {
    return undefined;
  }
  for (const p of properties) {
    if (found.findTypeMetadata(cls, p) || found.findTransformMetadatas(cls, p, TransformationType.PLAIN_TO_CLASS).length > 0)
      return undefined;
    if (p in cls.prototype || typeof blank[p] === 'function') return undefined;
  }
  return true;
}

/**
 * True when plainToInstance only copies the given members of `cls`: probes of every kind of value
 * (text with spaces and capitals, a fraction, a plain object) come out unchanged. Any @Type,
 * @Transform, @Expose or @Exclude on those members changes at least one of them; when in doubt the
 * general path is kept. Uses class-transformer's public API only (its metadata storage is private).
 */
function copiesVerbatim(cls: Ctor, properties: string[]): boolean {
  const probes: ((p: string, i: number) => unknown)[] = [(p) => ` Probe ${p} `, (_, i) => i + 0.5, (p) => ({ probe: p })];
  try {
    for (const make of probes) {
      const input = Object.fromEntries(properties.map((p, i) => [p, make(p, i)]));
      const out = plainToInstance(cls as unknown as TransformerCtor, input) as Record<string, unknown>;
      if (!(out instanceof cls)) return false;
      for (const p of properties) {
        const expected = input[p];
        const actual = out[p];
        if (typeof expected !== 'object') {
          if (actual !== expected) return false;
        } else if (
          typeof actual !== 'object' ||
          actual === null ||
          actual.constructor !== Object ||
          JSON.stringify(actual) !== JSON.stringify(expected)
        ) {
          return false;
        }
      }
    }
    return true;
  } catch {
    return false;
  }
}

function collect(errors: ValidationError[], prefix: string, into: string[], plan: Plan): void {
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    const constraints = Object.entries(e.constraints ?? {});
    if (constraints.some(([constraint]) => constraint === 'whitelistValidation')) {
      into.push(unknownIssue(e.property, prefix, plan));
    } else if (e.value === undefined && constraints.length > 0) {
      // Absent, not wrong: "must be a string" would send the model looking for a type mistake it did not make.
      into.push(`${path}: is required (required)`);
    } else {
      for (const [constraint, message] of constraints) into.push(`${path}: ${message} (${constraint})`);
    }
    if (e.children?.length) collect(e.children, path, into, plan);
  }
}
