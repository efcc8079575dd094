import 'reflect-metadata';
import { Exclude, Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { IsNumber, IsOptional, IsString } from 'class-validator';
import { validateInput } from '../../../src/validation/validate-input';

/*
 * What a handler receives is the instance plainToInstance makes of the members its class declares:
 * class-transformer's decorators (@Transform, @Expose, @Type, @Exclude) apply to every input class.
 */

class Plain {
  @IsString() name!: string;
  @IsOptional() @IsNumber() size?: number;
}

class Trimmed {
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)) @IsString() name!: string;
}

class PlainOnlyTransform {
  // Applies to instance -> plain only: plain -> instance copies the member as it is.
  @Transform(({ value }) => `out:${String(value)}`, { toPlainOnly: true }) @IsString() name!: string;
}

class Renamed {
  @Expose({ name: 'full_name' }) @IsOptional() @IsString() name?: string;
}

class Dated {
  @Type(() => Date) @IsOptional() when?: Date;
  @IsString() name!: string;
}

@Exclude()
class ExposedOnly {
  @Expose() @IsString() name!: string;
  @IsOptional() @IsString() note?: string;
}

class WithExcluded {
  @IsString() name!: string;
  @Exclude() @IsOptional() @IsString() secret?: string;
}

class Base {
  @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value)) @IsString() name!: string;
}
class Derived extends Base {
  @IsOptional() @IsString() note?: string;
}

class ReadOnlyMember {
  @IsOptional() @IsString() get name(): string {
    return 'fixed';
  }
}

const CLASSES = { Plain, Trimmed, PlainOnlyTransform, Renamed, Dated, ExposedOnly, WithExcluded, Derived, ReadOnlyMember };
const INPUTS: Record<string, unknown>[] = [
  { name: ' Ada ', size: 3 },
  { name: 'x', full_name: 'Ada Lovelace', when: '2026-11-27T00:00:00.000Z', note: 'n', secret: 's' },
  { name: 'y' },
];

/** What plainToInstance makes of `input`, keeping what validateInput keeps: the members the class declares. */
function expected(cls: new () => object, input: Record<string, unknown>, declared: readonly string[]): object {
  const out = plainToInstance(cls, input) as Record<string, unknown>;
  for (const key of Object.keys(out)) if (!declared.includes(key) && !(key in new cls())) delete out[key];
  return out;
}

const DECLARED: Record<keyof typeof CLASSES, string[]> = {
  Plain: ['name', 'size'],
  Trimmed: ['name'],
  PlainOnlyTransform: ['name'],
  Renamed: ['name'],
  Dated: ['when', 'name'],
  ExposedOnly: ['name', 'note'],
  WithExcluded: ['name', 'secret'],
  Derived: ['name', 'note'],
  ReadOnlyMember: ['name'],
};

describe('validateInput makes the instance plainToInstance makes', () => {
  for (const [name, cls] of Object.entries(CLASSES) as [keyof typeof CLASSES, new () => object][]) {
    it(`for ${name}`, async () => {
      for (const input of INPUTS) {
        const outcome = await validateInput(cls, input);
        if (!outcome.ok) continue; // refused input is another test's concern; each class accepts some of these
        expect(outcome.value).toBeInstanceOf(cls);
        expect(outcome.value).toEqual(expected(cls, input, DECLARED[name]));
      }
      const accepted = await Promise.all(INPUTS.map(async (input) => validateInput(cls, input)));
      expect(accepted.some((o) => o.ok)).toBe(true);
    });
  }

  it('applies what class-transformer would: a trimmed name, a renamed key, a date, a member kept out, an inherited transform', async () => {
    expect(await validateInput(Trimmed, { name: ' Ada ' })).toMatchObject({ ok: true, value: { name: 'Ada' } });
    expect(await validateInput(PlainOnlyTransform, { name: ' Ada ' })).toMatchObject({ ok: true, value: { name: ' Ada ' } });
    expect(await validateInput(Renamed, { full_name: 'Ada Lovelace' })).toMatchObject({ ok: true, value: { name: 'Ada Lovelace' } });
    const dated = await validateInput<Dated>(Dated, { name: 'x', when: '2026-11-27T00:00:00.000Z' });
    expect(dated.ok && dated.value.when).toBeInstanceOf(Date);
    expect(await validateInput(ExposedOnly, { name: 'a', note: 'n' })).toEqual({
      ok: true,
      value: Object.assign(new ExposedOnly(), { name: 'a' }),
    });
    expect(await validateInput(WithExcluded, { name: 'a', secret: 's' })).toEqual({
      ok: true,
      value: Object.assign(new WithExcluded(), { name: 'a' }),
    });
    expect(await validateInput(Derived, { name: 'ada' })).toMatchObject({ ok: true, value: { name: 'ADA' } });
  });
});
