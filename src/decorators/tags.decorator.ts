import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import { validTags } from '../metadata/tool-tags';
import { rejectStandardDecorator } from './describe-target';

/**
 * Tags every tool of a class (`@Tags('billing')`), as `@Tool({ tags })` tags one: search mode ranks tools
 * by their tags, filters by them, and lists them by group. A tool's own tags come after its class's.
 */
export function Tags(...tags: string[]): ClassDecorator {
  return (target: object, member?: unknown) => {
    rejectStandardDecorator('Tags', member);
    const where = (target as { name?: string }).name ?? 'anonymous class';
    if (tags.length === 0 || !validTags(tags))
      throw new InvalidDecoratorOptionsError('Tags', where, 'name at least one tag, each a non-empty string');
    metadataStore.addTags(target, tags);
  };
}
