import { plainToInstance, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidateNested,
  validate,
  type ValidationArguments,
  type ValidationError,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { type PlanError, ValidationPlan } from '../../../src/validation/validation-plan';
import { validateInput } from '../../../src/validation/validate-input';

// The compiled plan against class-validator's own validate, on the same inputs: the decorators the guides
// use (and the rest of what the plan runs), valid and invalid, with unknown members refused and stripped.

enum Priority {
  Low = 'low',
  High = 'high',
}

class Base {
  @IsString() @Length(1, 40) title!: string;
}

@ValidatorConstraint({ name: 'evenNumber' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage(args: ValidationArguments): string {
    return `${args.property} must be even, not $value`;
  }
}

@ValidatorConstraint({ name: 'later' })
class Later implements ValidatorConstraintInterface {
  validate(value: unknown): Promise<boolean> {
    return Promise.resolve(value === 'yes');
  }
}

class Everything extends Base {
  @IsInt() @Min(1) @Max(10) count!: number;
  @IsOptional() @IsEnum(Priority) priority?: Priority;
  @IsOptional() @IsIn(['a', 'b']) letter?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(3) @ArrayMinSize(1) @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsBoolean() flag?: boolean;
  @IsOptional() @MaxLength(5) @MinLength(2) short?: string;
  @IsOptional() @Matches(/^[a-z]+$/, { message: 'only lower case letters, not "$value"' }) word?: string;
  @IsOptional() @IsNumber({ maxDecimalPlaces: 2 }) @IsPositive() price?: number;
  @IsOptional() @IsEmail() email?: string;
  @IsOptional() @IsUrl() site?: string;
  @IsDefined()
  @Equals('v1', { message: (a: ValidationArguments) => `${a.property} of ${a.targetName} must be $constraint1` })
  version!: string;
  @ValidateIf((o: Everything) => o.flag === true) @IsString() ifFlagged?: string;
  @IsOptional() @Validate(Even) even?: number;
  @Allow() anything?: unknown;
}

class Untyped {
  @IsOptional() @Validate(Later) answer?: string;
}

class Inner {
  @IsString() name!: string;
}
class Outer {
  @ValidateNested() @Type(() => Inner) inner!: Inner;
}

const INPUTS: unknown[] = [
  { title: 'ok', count: 3, version: 'v1' },
  { title: 'ok', count: 3, version: 'v1', priority: 'high', letter: 'a', tags: ['x', 'y'], flag: true, ifFlagged: 's' },
  { title: '', count: 0, version: 'v2' },
  { title: 12, count: 3.5, version: undefined },
  {},
  { count: '3', priority: 'urgent', letter: 'c', tags: [1, 'x', 2, 3], flag: 'yes', short: 'x', word: 'Ab$&c', price: -1.234 },
  { title: 'ok', count: 11, version: 'v1', tags: [], email: 'not-mail', site: 'nope', even: 3, flag: true, ifFlagged: 7 },
  { title: 'ok', count: 2, version: 'v1', extra: 1, other: 'x', constructor: 1, toString: 'x' },
  { title: 'x'.repeat(41), count: 2, version: 'v1', tags: 'not an array', short: 'toolong', even: 4, anything: { a: 1 } },
  { title: 'ok', count: 2, version: 'v1', priority: null, letter: null, tags: null },
];

/** What validate reports, reduced to what validateInput reads of it (the plan reports no more). */
function reduced(errors: (ValidationError | PlanError)[]): unknown {
  return errors.map((e) => ({
    property: e.property,
    value: e.value,
    constraints: e.constraints,
    children: e.children?.length ? reduced(e.children) : [],
  }));
}

async function both(cls: new () => object, input: unknown, forbid: boolean) {
  const byPlan = plainToInstance(cls, input) as Record<string, unknown>;
  const byLibrary = plainToInstance(cls, input) as Record<string, unknown>;
  const plan = ValidationPlan.compile(cls)!;
  const planned = await plan.run(byPlan, forbid);
  const library = await validate(byLibrary, {
    whitelist: true,
    forbidNonWhitelisted: forbid,
    forbidUnknownValues: false,
    validationError: { target: false },
  });
  return { planned: reduced(planned), library: reduced(library), byPlan, byLibrary };
}

describe('ValidationPlan', () => {
  it.each(INPUTS.map((input, i) => [i, input]))('reports what validate reports for input %i, unknown members refused', async (_, input) => {
    const { planned, library, byPlan, byLibrary } = await both(Everything, input, true);
    expect(planned).toEqual(library);
    expect(byPlan).toEqual(byLibrary);
  });

  it.each(INPUTS.map((input, i) => [i, input]))(
    'reports what validate reports for input %i, unknown members stripped',
    async (_, input) => {
      const { planned, library, byPlan, byLibrary } = await both(Everything, input, false);
      expect(planned).toEqual(library);
      // Stripping deletes the same members from the instance.
      expect(Object.keys(byPlan).sort()).toEqual(Object.keys(byLibrary).sort());
    },
  );

  it('finds invalid inputs invalid and valid ones valid, as validate does', async () => {
    const verdicts = await Promise.all(INPUTS.map(async (input) => (await both(Everything, input, true)).planned));
    expect(verdicts.map((v) => (v as unknown[]).length === 0)).toEqual([true, true, false, false, false, false, false, false, false, true]);
  });

  it('waits for a constraint that answers with a promise, and reports what validate reports', async () => {
    for (const input of [{ answer: 'yes' }, { answer: 'no' }, {}]) {
      const { planned, library } = await both(Untyped, input, true);
      expect(planned).toEqual(library);
    }
  });

  it('has no plan for a class with a nested rule: validateInput has class-validator validate it whole', async () => {
    expect(ValidationPlan.compile(Outer)).toBeUndefined();
    expect(await validateInput(Outer, { inner: { name: 1 } })).toEqual({
      ok: false,
      issues: ['inner.name: name must be a string (isString)'],
    });
    expect(await validateInput(Outer, { inner: { name: 'n' } })).toMatchObject({ ok: true });
  });

  it('gives validateInput the same issues, worded for a tool, as the whole library path would', async () => {
    const outcome = await validateInput(Everything, { title: '', count: 0, version: 'v1', unknown: 1 }, 'refuse');
    expect(outcome).toEqual({
      ok: false,
      issues: [
        // class-validator's order: the class's own rules, then those it inherits.
        expect.stringMatching(/^unknown: is not a parameter of this tool; its parameters are count, .*, title \(unknownArgument\)$/),
        'count: count must not be less than 1 (min)',
        'title: title must be longer than or equal to 1 characters (isLength)',
      ],
    });
  });
});
