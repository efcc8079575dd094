/** True for what `tags` takes, on `@Tool` and `app.addTool()` alike: an array of non-empty strings. */
export function validTags(tags: unknown): tags is string[] {
  return Array.isArray(tags) && tags.every((tag) => typeof tag === 'string' && tag.length > 0);
}
