import { IsString, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
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
