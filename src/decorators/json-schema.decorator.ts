import { metadataStore } from '../metadata/metadata-store';
import type { ClassSchemaOptions } from '../metadata/records';

/**
 * Schema details of a whole input class: `additionalProperties: false` (unknown members are then
 * refused, not stripped), a `$defs` name to emit the class once and refer to it, a title or description.
 */
export function JsonSchema(options: ClassSchemaOptions): ClassDecorator {
  return (target) => {
    metadataStore.setSchema(target, { ...options });
  };
}
