import { IsString, Validate, ValidateNested, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { Type } from 'class-transformer';
import { JsonSchema } from '../../../src';
import { validateInput } from '../../../src/validation/validate-input';

@ValidatorConstraint({ name: 'slowlyUnique', async: true })
class SlowlyUnique implements ValidatorConstraintInterface {
  async validate(value: unknown): Promise<boolean> {
    await new Promise((r) => setTimeout(r, 5));
    return value !== 'taken';
  }
  defaultMessage(): string {
    return 'name is taken';
  }
}

class Plain {
  @IsString() name!: string;
}

class WithAsync {
  @IsString() @Validate(SlowlyUnique) name!: string;
}

describe('validateInput', () => {
  it('validates plain classes (synchronous constraints only)', async () => {
    expect(await validateInput(Plain, { name: 'x', extra: 1 })).toEqual({ ok: true, value: Object.assign(new Plain(), { name: 'x' }) });
    expect(await validateInput(Plain, { name: 3 })).toEqual({ ok: false, issues: ['name: name must be a string (isString)'] });
    expect(await validateInput(Plain, [])).toEqual({ ok: false, issues: ['arguments: must be an object'] });
  });

  it('still runs asynchronous custom constraints', async () => {
    expect(await validateInput(WithAsync, { name: 'free' })).toMatchObject({ ok: true });
    expect(await validateInput(WithAsync, { name: 'taken' })).toEqual({ ok: false, issues: ['name: name is taken (slowlyUnique)'] });
  });
});

describe('validateInput: what is missing, what is unknown', () => {
  it('says a missing member is required, whatever its type rules', async () => {
    expect(await validateInput(Plain, {})).toEqual({ ok: false, issues: ['name: is required (required)'] });
    expect(await validateInput(Plain, undefined)).toEqual({ ok: false, issues: ['name: is required (required)'] });
  });

  it('strips unknown members by default, and refuses them by name when asked', async () => {
    expect(await validateInput(Plain, { name: 'x', extra: 1 })).toMatchObject({ ok: true });
    expect(await validateInput(Plain, { name: 'x', extra: 1 }, 'refuse')).toEqual({
      ok: false,
      issues: ['extra: is not a parameter of this tool; its parameters are name (unknownArgument)'],
    });
    expect(await validateInput(WithAsync, { name: 'x', extra: 1 }, 'refuse')).toMatchObject({ ok: false });
  });

  it('refuses only what the input holds: a member declared without a rule is not unknown until it is sent', async () => {
    class WithHelper {
      @IsString() name!: string;
      helper?: string;
    }
    expect(await validateInput(WithHelper, { name: 'x' }, 'refuse')).toMatchObject({ ok: true, value: { name: 'x' } });
    expect(await validateInput(WithHelper, { name: 'x', helper: 'h' }, 'refuse')).toEqual({
      ok: false,
      issues: ['helper: is not a parameter of this tool; its parameters are name (unknownArgument)'],
    });
  });

  it('names an unknown key of a strict class outside tool arguments without speaking of a tool', async () => {
    @JsonSchema({ additionalProperties: false })
    class Strict {
      @IsString() name!: string;
    }
    expect(await validateInput(Strict, { name: 'x', extra: 1 })).toEqual({
      ok: false,
      issues: ['extra: is not a known property (unknownProperty)'],
    });
  });
});

describe('validateInput on hostile input', () => {
  class Inner {
    @IsString() tag!: string;
  }
  class Outer {
    @IsString() query!: string;
    @ValidateNested() @Type(() => Inner) filter?: Inner;
  }
  const deep = (depth: number): unknown => {
    let value: unknown = {};
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  it.each([
    ['a 10,000-deep object in a nested member', () => ({ query: 'x', filter: deep(10_000) }), /filter(\.a)*: .*nested/],
    ['a 10,000-deep object in a plain member', () => ({ query: deep(10_000) }), /query(\.a)*: .*nested/],
    ['a "constructor" key in a value', () => JSON.parse('{"query":{"constructor":1}}'), /query\.constructor: .*not allowed/],
    [
      'a "constructor" key in a nested object',
      () => JSON.parse('{"query":"x","filter":{"tag":{"constructor":1}}}'),
      /filter\.tag\.constructor: .*not allowed/,
    ],
    ['a "__proto__" key', () => JSON.parse('{"query":"x","filter":{"__proto__":{"tag":5}}}'), /filter\.__proto__: .*not allowed/],
    ['a "prototype" key', () => JSON.parse('{"query":"x","prototype":{"x":1}}'), /prototype: .*not allowed/],
  ])('reports %s as an issue instead of throwing', async (_label, input, issue) => {
    const outcome = await validateInput(Outer, input());
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.issues.some((i) => issue.test(i))).toBe(true);
  });

  it('still accepts ordinary nested input', async () => {
    const outcome = await validateInput<Outer>(Outer, { query: 'x', filter: { tag: 't' } });
    expect(outcome.ok && outcome.value.filter).toBeInstanceOf(Inner);
  });
});

describe('validateInput asks class-validator every time', () => {
  /** A constraint not declared asynchronous whose validator answers with a promise. */
  @ValidatorConstraint({ name: 'notYet' })
  class NotYet implements ValidatorConstraintInterface {
    validate(value: unknown): Promise<boolean> {
      return Promise.resolve(value !== 'late');
    }
    defaultMessage(): string {
      return '$property is late';
    }
  }
  class Arrival {
    @IsString() @Validate(NotYet) when!: string;
  }

  it('waits for a validator that answers with a promise', async () => {
    expect(await validateInput(Arrival, { when: 'now' })).toMatchObject({ ok: true });
    expect(await validateInput(Arrival, { when: 'late' })).toEqual({ ok: false, issues: ['when: when is late (notYet)'] });
  });
});
