import * as classValidator from 'class-validator';
import {
  Allow,
  ArrayMinSize,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { checkInput, validateInput } from '../../../src/validation/validate-input';

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage(): string {
    return '$property must be even';
  }
}

/** A constraint declared synchronous whose validator answers with a promise (class-validator's sync run ignores it). */
@ValidatorConstraint({ name: 'sneaky' })
class Sneaky implements ValidatorConstraintInterface {
  validate(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

class Query {
  @IsString() @MaxLength(10) text!: string;
  @IsOptional() @IsInt() @Min(1) @Max(5) limit?: number;
  @IsIn(['asc', 'desc']) @IsOptional() order?: string;
}

class Conditional {
  @IsString() kind!: string;
  @ValidateIf((o: Conditional) => o.kind === 'number') @IsInt() value?: unknown;
  @IsDefined() @Validate(Even) count!: number;
  @Allow() note?: unknown;
}

class Each {
  @IsString({ each: true }) @ArrayMinSize(1) tags!: string[];
  @IsString({ each: true }) @IsOptional() label?: string;
}

class WithSneaky {
  @Validate(Sneaky) x!: unknown;
}

/** class-validator's own answer, as validateInput asked it before the precomputed checks. */
function reference(cls: new () => object, input: Record<string, unknown>): { ok: boolean; issues?: number } {
  const instance = Object.assign(new cls(), input);
  const errors = classValidator.validateSync(instance, { whitelist: true, forbidUnknownValues: false, validationError: { target: false } });
  return errors.length === 0 ? { ok: true } : { ok: false, issues: errors.length };
}

const cases: [new () => object, Record<string, unknown>][] = [
  [Query, { text: 'hello' }],
  [Query, { text: 'hello', limit: 3, order: 'asc' }],
  [Query, { text: 'hello', limit: null }],
  [Query, { text: 'hello', limit: 9 }],
  [Query, { text: 'far too long a text' }],
  [Query, { text: 4 }],
  [Query, {}],
  [Query, { text: 'x', order: 'sideways' }],
  [Conditional, { kind: 'text', count: 2 }],
  [Conditional, { kind: 'number', value: 3, count: 4 }],
  [Conditional, { kind: 'number', value: 'three', count: 4 }],
  [Conditional, { kind: 'text', count: 3 }],
  [Conditional, { kind: 'text' }],
  [Conditional, { kind: 'text', count: 2, note: { any: 'thing' } }],
  [Each, { tags: ['a', 'b'] }],
  [Each, { tags: ['a', 2] }],
  [Each, { tags: [] }],
  [Each, { tags: ['a'], label: 'plain' }],
  [Each, { tags: ['a'], label: 7 }],
  [WithSneaky, { x: 1 }],
];

describe('validateInput: the precomputed checks of valid input', () => {
  it.each(cases)('%p %j: the same verdict as class-validator', async (cls, input) => {
    const outcome = await validateInput(cls, input);
    const expected = reference(cls, input);
    expect(outcome.ok).toBe(expected.ok);
    if (!outcome.ok) expect(outcome.issues.length).toBeGreaterThanOrEqual(expected.issues!);
  });

  it('answers valid input of a class with synchronous constraints without running class-validator, and without a promise', () => {
    const spy = jest.spyOn(classValidator, 'validateSync');
    try {
      const outcome = checkInput(Query, { text: 'hello', limit: 2, extra: 'stripped' });
      expect(outcome).toEqual({ ok: true, value: Object.assign(new Query(), { text: 'hello', limit: 2 }) });
      expect(spy).not.toHaveBeenCalled();
      // Invalid input: class-validator words the issues, as before.
      expect(checkInput(Query, { text: 'hello', limit: 0 })).toEqual({ ok: false, issues: ['limit: limit must not be less than 1 (min)'] });
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('leaves what it does not model to class-validator: `each` over an array', () => {
    const spy = jest.spyOn(classValidator, 'validateSync');
    try {
      expect(checkInput(Each, { tags: ['a'] })).toMatchObject({ ok: true });
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
