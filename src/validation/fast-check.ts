import type { MetadataStorage, ValidationArguments } from 'class-validator';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** class-validator's metadata types (its ValidationTypes), by value. */
const CUSTOM = 'customValidation';
const IS_DEFINED = 'isDefined';
const CONDITIONAL = 'conditionalValidation';
const WHITELIST = 'whitelistValidation';

interface Rule {
  readonly metadata: ValidationMetadata;
  readonly constraints: readonly ConstraintMetadata[];
}

interface Property {
  readonly name: string;
  /** @ValidateIf / @IsOptional: the property is checked only when every one of them says so. */
  readonly conditions: readonly ((object: object, value: unknown) => boolean)[];
  readonly rules: readonly Rule[];
}

/**
 * What class-validator's `validateSync` decides for a valid instance, worked out once per class: the
 * constraints of each property, found once (class-validator looks them up among every class's
 * metadata on each call), then each validator called directly. Answers true only when every
 * constraint passes as class-validator would judge it (conditions first, `validateIf`, truthy
 * results); anything it does not model (`each` over a collection, a validator answering with a
 * promise) answers false, and so does an invalid instance: the caller then runs class-validator,
 * which words the issues. Undefined for a class with metadata of another kind (nested, promise).
 */
export function passesCheck(
  metadatas: readonly ValidationMetadata[],
  storage: MetadataStorage,
): ((instance: object) => boolean) | undefined {
  const byName = new Map<string, { conditions: Property['conditions'][number][]; rules: Rule[] }>();
  for (const m of metadatas) {
    let property = byName.get(m.propertyName);
    if (!property) byName.set(m.propertyName, (property = { conditions: [], rules: [] }));
    if (m.type === CONDITIONAL) property.conditions.push(m.constraints[0] as Property['conditions'][number]);
    else if (m.type === CUSTOM || m.type === IS_DEFINED) {
      const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
      if (constraints.some((c) => c.async)) return undefined;
      property.rules.push({ metadata: m, constraints });
    } else if (m.type !== WHITELIST) return undefined;
  }
  const properties: Property[] = [...byName].map(([name, p]) => ({ name, ...p }));
  // The instances checked are all of one class (see validate-input's copy): its name is read once.
  let targetName: string | undefined;
  return (instance) => {
    const object = instance as Record<string, unknown>;
    targetName ??= object.constructor ? object.constructor.name : undefined;
    for (const property of properties) {
      const value = object[property.name];
      let checked = true;
      for (const condition of property.conditions) checked = condition(object, value) && checked;
      if (!checked) continue;
      for (const { metadata, constraints } of property.rules) {
        if (metadata.validateIf && !metadata.validateIf(object, value)) continue;
        if (metadata.each && (Array.isArray(value) || value instanceof Set || value instanceof Map)) return false;
        for (const constraint of constraints) {
          const args: ValidationArguments = {
            targetName: targetName as string,
            property: metadata.propertyName,
            object,
            value,
            constraints: metadata.constraints,
          };
          const valid: unknown = constraint.instance.validate(value, args);
          if (!valid || (typeof valid === 'object' && typeof (valid as { then?: unknown }).then === 'function')) return false;
        }
      }
    }
    return true;
  };
}
