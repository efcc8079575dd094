import { metadataStore } from '../metadata/metadata-store';
import type { ClassSchemaOptions } from '../metadata/records';
import { rejectStandardDecorator } from './describe-target';

/**
 * Schema details of a whole input class: `additionalProperties: false` (unknown members are then
 * refused, not stripped), a `$defs` name to emit the class once and refer to it, a title or description.
 */
export function JsonSchema(options: ClassSchemaOptions): ClassDecorator {
  return (target, ...standard: unknown[]) => {
    // A standard (TC39) decorator gets a context object second: refused, with the tsconfig that fixes it.
    rejectStandardDecorator('JsonSchema', standard[0]);
    metadataStore.setSchema(target, { ...options });
  };
}
