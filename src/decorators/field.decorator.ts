import { Allow } from 'class-validator';
import { metadataStore } from '../metadata/metadata-store';
import type { FieldOptions } from '../metadata/records';
import { rejectStandardDecorator } from './describe-target';

/**
 * Annotates a property of an input class with JSON Schema details (description, title, default,
 * examples). It also marks the property as allowed, so that a property with no other validator is
 * kept when unknown properties are stripped.
 */
export function Field(options: FieldOptions | string): PropertyDecorator {
  const normalized: FieldOptions = typeof options === 'string' ? { description: options } : { ...options };
  const allow = Allow();
  return (target, property) => {
    rejectStandardDecorator('Field', property);
    if (typeof property !== 'string') return;
    metadataStore.addField(target.constructor, property, normalized);
    allow(target, property);
  };
}
