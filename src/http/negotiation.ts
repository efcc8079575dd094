import Negotiator from 'negotiator';

/**
 * True when the Accept header `accept` lists every one of `types` with a quality above 0 (wildcards
 * included); false without an Accept header. The header is parsed once, by negotiator (what Koa's own
 * ctx.accepts asks), so that both front doors judge an Accept header alike.
 */
export function acceptsAll(accept: string, types: readonly string[]): boolean {
  if (accept === '') return false;
  return new Negotiator({ headers: { accept } }).mediaTypes([...types]).length === types.length;
}
