import type { RankOptions } from './tool-ranker';

/**
 * The one test a ranker applies to each candidate while ranking: the tag filter, then the caller's
 * visibility. Undefined when the options filter nothing, so that an unfiltered ranking pays nothing for it.
 */
export function rankFilter(
  options: RankOptions,
  tagsOf: (name: string) => readonly string[] | undefined,
): ((name: string) => boolean) | undefined {
  const wanted = options.tags && options.tags.length > 0 ? new Set(options.tags) : undefined;
  const visible = options.visible;
  if (!wanted) return visible;
  return (name) => (tagsOf(name) ?? []).some((tag) => wanted.has(tag)) && (!visible || visible(name));
}

/** Best first; equal scores in name order (by code unit, the same in every locale). */
export function byScoreThenName(a: { name: string; score: number }, b: { name: string; score: number }): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The number of results a limit allows: a whole number, at least 0. */
export function resultCount(limit: number): number {
  return Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit));
}
