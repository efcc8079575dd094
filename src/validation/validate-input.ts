import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate } from 'class-validator';
import { metadataStore } from '../metadata/metadata-store';
import { type PlanError, ValidationPlan } from './validation-plan';

type Ctor = new (...args: never[]) => object;
type TransformerCtor = Parameters<typeof plainToInstance>[0];

export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; issues: string[] };

/**
 * What to do with members of the input that its class does not declare: `refuse` them (tool
 * arguments: the model hears which key is unknown and can correct its call) or `strip` them (output,
 * prompt arguments, URI variables). A class's `@JsonSchema({ additionalProperties })` overrides both.
 */
export type UnknownKeys = 'refuse' | 'strip';

/** What the issues of one call are worded after: the class validated, and whether the input is a tool's arguments. */
interface Wording {
  cls: Ctor;
  /** Validating a tool's arguments (`unknownKeys: 'refuse'`): issues speak of the tool's parameters. */
  toolArguments: boolean;
}

/** Each input class's plan, compiled on its first validation; null when class-validator validates it whole. */
const plans = new WeakMap<object, ValidationPlan | null>();

function planOf(cls: Ctor): ValidationPlan | undefined {
  let plan = plans.get(cls);
  if (plan === undefined) plans.set(cls, (plan = ValidationPlan.compile(cls) ?? null));
  return plan ?? undefined;
}

/**
 * The one place where untrusted input becomes a class instance: class-transformer's `plainToInstance`,
 * then class-validator's rules, run by the class's compiled plan (ValidationPlan: the same rules,
 * constraints and messages) or, for a class with rules the plan does not run, by `validate` itself.
 * Every issue of the input is reported at once, each as `path: message (constraint)` so that a model can
 * correct its call; a member the input lacks reads `is required`, whatever its type rules say. Answers at
 * once unless validation had to wait (an asynchronous constraint); never rejects.
 */
export function validateInput<T extends object>(
  cls: Ctor,
  input: unknown,
  unknownKeys: UnknownKeys = 'strip',
): ValidationOutcome<T> | Promise<ValidationOutcome<T>> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return { ok: false, issues: ['arguments: must be an object'] };
  }
  const hostile = hostileShape(input);
  if (hostile) return { ok: false, issues: [hostile] };
  const declared = metadataStore.schema(cls)?.additionalProperties;
  const refuse = declared === undefined ? unknownKeys === 'refuse' : declared === false;
  const wording = { cls, toolArguments: unknownKeys === 'refuse' };
  let instance: T;
  let errors: PlanError[] | Promise<PlanError[]>;
  try {
    instance = plainToInstance(cls as unknown as TransformerCtor, input ?? {}) as T;
    const plan = planOf(cls);
    errors = plan
      ? plan.run(instance as Record<string, unknown>, refuse)
      : validate(instance, {
          whitelist: true,
          forbidNonWhitelisted: refuse,
          forbidUnknownValues: false,
          validationError: { target: false },
        });
  } catch {
    return unreadable();
  }
  if (Array.isArray(errors)) return outcome(instance, errors, wording);
  return errors.then(
    (found) => outcome(instance, found, wording),
    () => unreadable(),
  );
}

/** The input is what class-transformer or class-validator could not handle: the caller's mistake. */
function unreadable<T>(): ValidationOutcome<T> {
  return { ok: false, issues: ['arguments: could not be read as the expected shape'] };
}

function outcome<T>(instance: T, errors: PlanError[], wording: Wording): ValidationOutcome<T> {
  if (errors.length === 0) return { ok: true, value: instance };
  const issues: string[] = [];
  collect(errors, '', issues, wording);
  return issues.length === 0 ? { ok: true, value: instance } : { ok: false, issues };
}

/** The issue for a member the class does not declare; at the top level it names the members that are. */
function unknownIssue(key: string, prefix: string, wording: Wording): string {
  const path = prefix ? `${prefix}.${key}` : key;
  // Only tool arguments ('refuse') are parameters of a tool; a strict class elsewhere names the key alone.
  if (prefix || !wording.toolArguments) return `${path}: is not a known property (unknownProperty)`;
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(wording.cls, '', true, false);
  const known = [...new Set(metadatas.map((m) => m.propertyName))];
  return `${path}: is not a parameter of this tool; ${known.length > 0 ? `its parameters are ${known.join(', ')}` : 'it takes none'} (unknownArgument)`;
}

/** Deepest nesting accepted in input; deeper input is refused before anything recurses into it. */
export const MAX_INPUT_DEPTH = 64;

/** Keys that reach into prototypes when class-transformer copies them (or that make it throw). */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks input for what breaks the libraries that read it: nesting deeper than MAX_INPUT_DEPTH
 * (class-transformer recurses and overflows the stack) and prototype keys. Iterative, so the check
 * itself cannot overflow; returns the first problem as an issue, or undefined.
 */
export function hostileShape(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
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

function collect(errors: PlanError[], prefix: string, into: string[], wording: Wording): void {
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    const constraints = Object.entries(e.constraints ?? {});
    if (constraints.some(([constraint]) => constraint === 'whitelistValidation')) {
      // A member the class declares without a rule is an own property of every instance (class fields), sent
      // or not: only one that holds a value came from the input.
      if (e.value !== undefined) into.push(unknownIssue(e.property, prefix, wording));
    } else if (e.value === undefined && constraints.length > 0) {
      // Absent, not wrong: "must be a string" would send the model looking for a type mistake it did not make.
      into.push(`${path}: is required (required)`);
    } else {
      for (const [constraint, message] of constraints) into.push(`${path}: ${message} (${constraint})`);
    }
    if (e.children?.length) collect(e.children, path, into, wording);
  }
}
