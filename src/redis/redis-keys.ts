import { createHash } from 'node:crypto';

/**
 * The Redis Cluster hash tag of `value`, braces included: keys that hold the same tag live in the same
 * slot, so that one script or pipeline may touch them all, while different values spread over the
 * masters. Hashed, so that any value (braces included) gives a short tag that is never empty.
 */
export function hashTag(value: string): string {
  return `{${tagOf(value)}}`;
}

/** The eight hex digits inside {@link hashTag}'s braces. */
export function tagOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 8);
}
