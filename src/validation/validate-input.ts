import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { metadataStore } from '../metadata/metadata-store';

type Ctor = new (...args: never[]) => object;
type TransformerCtor = Parameters<typeof plainToInstance>[0];

export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; issues: string[] };

/**
 * The one place where untrusted input becomes a class instance: class-transformer, then
 * class-validator. Unknown properties are stripped; each violation is reported as
 * `path: message (constraint)` so that a model can correct its call.
 */
export async function validateInput<T extends object>(cls: Ctor, input: unknown): Promise<ValidationOutcome<T>> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return { ok: false, issues: ['arguments: must be an object'] };
  }
  const instance = plainToInstance(cls as unknown as TransformerCtor, input ?? {}) as T;
  const forbidNonWhitelisted = metadataStore.schema(cls)?.additionalProperties === false;
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted, forbidUnknownValues: false, validationError: { target: false } });
  if (errors.length === 0) return { ok: true, value: instance };
  const issues: string[] = [];
  collect(errors, '', issues);
  return { ok: false, issues };
}

function collect(errors: ValidationError[], prefix: string, into: string[]): void {
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    for (const [constraint, message] of Object.entries(e.constraints ?? {})) {
      into.push(`${path}: ${message} (${constraint})`);
    }
    if (e.children?.length) collect(e.children, path, into);
  }
}
