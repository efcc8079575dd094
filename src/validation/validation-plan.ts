import { getMetadataStorage, type MetadataStorage, type ValidationArguments, type ValidationError, ValidationTypes } from 'class-validator';

type Metadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
type Constraint = ReturnType<MetadataStorage['getTargetValidatorConstraints']>[number];

/** What a plan reports of one property, as class-validator's ValidationError does (what validateInput reads of it). */
export type PlanError = Pick<ValidationError, 'property' | 'value' | 'constraints' | 'children'>;

/** A validation rule of one property, with the constraints that run it. */
interface Rule {
  readonly metadata: Metadata;
  readonly constraints: readonly Constraint[];
}

/** The rules of one property, sorted as class-validator's executor sorts them. */
interface PropertyRules {
  readonly name: string;
  /** `@IsDefined`: checked even where a condition skips the rest. */
  readonly defined: readonly Rule[];
  /** `@IsOptional`, `@ValidateIf`: every one is asked; the property is checked only when all say so. */
  readonly conditions: readonly Metadata[];
  /** Every other rule (`@IsString`, `@Min`, `@Validate(...)`, ...). */
  readonly custom: readonly Rule[];
}

/**
 * One class's validation, compiled once from class-validator's public metadata: the rules class-validator
 * would find for it (its own and its ancestors'), grouped by property, each with its constraint. `run`
 * executes them as class-validator's `validate(instance, { whitelist: true, forbidNonWhitelisted,
 * forbidUnknownValues: false })` does, with the same constraint instances (`validate`, `defaultMessage`)
 * and the same message tokens, so the errors are the same. Each call of `validate` would find and group
 * the metadata again (scanning every class class-validator knows) and await its result: a plan does that
 * work once, and answers at once unless a constraint answers with a promise.
 *
 * A class with a rule the plan does not run (`@ValidateNested`, `@ValidatePromise`, an async constraint)
 * has no plan (see planOf): class-validator validates it whole.
 */
export class ValidationPlan {
  private constructor(
    /** Properties by name, as class-validator groups them: a plain object, so `Object.keys` orders them alike. */
    private readonly grouped: Readonly<Record<string, PropertyRules>>,
  ) {}

  /** The plan of a class whose rules it can all run, else undefined. */
  static compile(cls: object): ValidationPlan | undefined {
    const storage = getMetadataStorage();
    const metadatas = storage.getTargetValidationMetadatas(cls as new () => object, '', false, false);
    const grouped: Record<string, { defined: Rule[]; conditions: Metadata[]; custom: Rule[] }> = {};
    for (const metadata of metadatas) {
      if (metadata.type === ValidationTypes.NESTED_VALIDATION || metadata.type === ValidationTypes.PROMISE_VALIDATION) return undefined;
      const rules = (grouped[metadata.propertyName] ??= { defined: [], conditions: [], custom: [] });
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) rules.conditions.push(metadata);
      else if (metadata.type === ValidationTypes.IS_DEFINED || metadata.type === ValidationTypes.CUSTOM_VALIDATION) {
        const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
        if (constraints.some((c) => c.async)) return undefined;
        (metadata.type === ValidationTypes.IS_DEFINED ? rules.defined : rules.custom).push({ metadata, constraints });
      }
      // WHITELIST (@Allow) rules only name a property as allowed: being grouped is all they do.
    }
    const plan: Record<string, PropertyRules> = {};
    for (const name of Object.keys(grouped)) plan[name] = { name, ...grouped[name] };
    return new ValidationPlan(plan);
  }

  /**
   * The errors of `object`, as class-validator reports them once its empty ones are stripped; a promise
   * of them when some constraint answered with one. Properties without a rule are refused
   * (`forbidNonWhitelisted`) or deleted from the object, as `whitelist: true` does.
   */
  run(object: Record<string, unknown>, forbidNonWhitelisted: boolean): PlanError[] | Promise<PlanError[]> {
    const errors: PlanError[] = [];
    const pending: Promise<void>[] = [];
    this.whitelist(object, forbidNonWhitelisted, errors);
    for (const name of Object.keys(this.grouped)) {
      const rules = this.grouped[name];
      const value = object[name];
      const error: PlanError = { property: name, value, constraints: {}, children: [] };
      errors.push(error);
      // Every condition is asked (no short cut), as the executor maps them all before reducing.
      let validate = true;
      for (const condition of rules.conditions) validate = (condition.constraints[0] as Condition)(object, value) && validate;
      if (!validate) continue;
      check(object, value, rules.defined, error, pending);
      check(object, value, rules.custom, error, pending);
    }
    if (pending.length === 0) return stripEmpty(errors);
    return Promise.all(pending).then(() => stripEmpty(errors));
  }

  private whitelist(object: Record<string, unknown>, forbid: boolean, errors: PlanError[]): void {
    const grouped = this.grouped as Record<string, { length?: number } | undefined>;
    for (const property of Object.keys(object)) {
      // The executor's own test, on a plain object: an inherited member (`constructor`) counts as grouped.
      const rules = grouped[property] as unknown as { length?: number } | PropertyRules | undefined;
      if (rules && (rules as { length?: number }).length !== 0) continue;
      if (forbid)
        errors.push({
          property,
          value: object[property],
          constraints: { [ValidationTypes.WHITELIST]: `property ${property} should not exist` },
        });
      else delete object[property];
    }
  }
}

type Condition = (object: object, value: unknown) => boolean;

/** Runs rules of one property into its error, as the executor's customValidations does. */
function check(object: Record<string, unknown>, value: unknown, rules: readonly Rule[], error: PlanError, pending: Promise<void>[]): void {
  for (const { metadata, constraints } of rules) {
    if (metadata.validateIf && !metadata.validateIf(object, value)) continue;
    for (const constraint of constraints) {
      const args = argumentsOf(object, value, metadata);
      // Read each time, as the executor does: a container of the application's (useContainer) may answer anew.
      const instance = constraint.instance;
      const fail = () => {
        const [type, message] = failure(object, value, metadata, constraint);
        error.constraints![type] = message;
      };
      if (!metadata.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) {
        const valid: unknown = instance.validate(value, args);
        if (isPromise(valid)) pending.push(valid.then((ok) => void (ok || fail())));
        else if (!valid) fail();
        continue;
      }
      const items: unknown[] =
        value instanceof Map ? Array.from(value.values()) : Array.isArray(value) ? value : Array.from(value as Set<unknown>);
      const results: unknown[] = items.map((item) => instance.validate(item, args));
      if (results.some(isPromise)) {
        pending.push(
          Promise.all(results.map((r) => (isPromise(r) ? r : Promise.resolve(r)))).then((all) => void (all.every(Boolean) || fail())),
        );
        continue;
      }
      if (!results.every(Boolean)) fail();
    }
  }
}

/** What a constraint's validate and defaultMessage are given, as the executor makes it (a new object each time). */
function argumentsOf(object: Record<string, unknown>, value: unknown, metadata: Metadata): ValidationArguments {
  return {
    targetName: object.constructor ? object.constructor.name : (undefined as unknown as string),
    property: metadata.propertyName,
    object,
    value,
    constraints: metadata.constraints,
  };
}

/** The constraint's name and message of a failed rule, as the executor's createValidationError makes them. */
function failure(object: Record<string, unknown>, value: unknown, metadata: Metadata, constraint: Constraint): [string, string] {
  const args = argumentsOf(object, value, metadata);
  const type = constraint.name ? constraint.name : metadata.type;
  let message: unknown = metadata.message || '';
  if (!metadata.message && constraint.instance.defaultMessage instanceof Function) message = constraint.instance.defaultMessage(args);
  return [type, replaceTokens(message, args)];
}

/** class-validator's ValidationUtils.replaceMessageSpecialTokens (not exported), step for step. */
function replaceTokens(message: unknown, args: ValidationArguments): string {
  let text: string | undefined;
  if (message instanceof Function) text = (message as (a: ValidationArguments) => string)(args);
  else if (typeof message === 'string') text = message;
  if (text && Array.isArray(args.constraints)) {
    args.constraints.forEach((constraint: unknown, index: number) => {
      text = text!.replace(new RegExp(`\\$constraint${index + 1}`, 'g'), constraintText(constraint));
    });
  }
  if (text && args.value !== undefined && args.value !== null && ['string', 'boolean', 'number'].includes(typeof args.value))
    text = text.replace(/\$value/g, args.value as string);
  if (text) text = text.replace(/\$property/g, args.property);
  if (text) text = text.replace(/\$target/g, args.targetName);
  return text as string;
}

/** class-validator's constraintToString. */
function constraintText(constraint: unknown): string {
  if (Array.isArray(constraint)) return constraint.join(', ');
  if (typeof constraint === 'symbol') return `${constraint.description}`;
  return `${constraint as string}`;
}

function isPromise(value: unknown): value is Promise<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** The executor's stripEmptyErrors: an error with no constraint (and no children) is dropped. */
function stripEmpty(errors: PlanError[]): PlanError[] {
  return errors.filter((error) => Object.keys(error.constraints!).length > 0);
}
