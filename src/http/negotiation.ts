import { parse as parseContentType } from 'content-type';
import Negotiator from 'negotiator';

/** How many distinct header values a Negotiation remembers; clients send few, and a flood of made-up ones only evicts. */
const REMEMBERED = 256;

/**
 * Content negotiation of one application's endpoint, on both front doors: an Accept header read by
 * negotiator (what Koa's own ctx.accepts asks), a Content-Type by content-type (what ctx.is reads). Each
 * distinct header value is parsed once and its answer remembered (the oldest forgotten past REMEMBERED).
 */
export class Negotiation {
  /** By the caller's list of types (a constant of its own), then by header value. */
  private readonly accepted = new Map<readonly string[], Map<string, boolean>>();
  private readonly mediaTypes = new Map<string, string | undefined>();

  /**
   * True when the Accept header `accept` lists every one of `types` with a quality above 0 (wildcards
   * included); false without an Accept header. `types` is a constant of the caller's (answers are
   * remembered for that array, by header value).
   */
  accepts(accept: string, types: readonly string[]): boolean {
    if (accept === '') return false;
    let answers = this.accepted.get(types);
    if (!answers) this.accepted.set(types, (answers = new Map<string, boolean>()));
    let answer = answers.get(accept);
    if (answer === undefined) {
      answer = new Negotiator({ headers: { accept } }).mediaTypes([...types]).length === types.length;
      remember(answers, accept, answer);
    }
    return answer;
  }

  /** The media type a Content-Type header names, in lower case without parameters; undefined when it names none. */
  mediaType(contentType: string): string | undefined {
    if (this.mediaTypes.has(contentType)) return this.mediaTypes.get(contentType);
    let type: string | undefined;
    try {
      type = parseContentType(contentType, { parameters: false }).type || undefined;
    } catch {
      type = undefined;
    }
    remember(this.mediaTypes, contentType, type);
    return type;
  }
}

function remember<V>(memo: Map<string, V>, key: string, value: V): void {
  if (memo.size >= REMEMBERED) memo.delete(memo.keys().next().value!);
  memo.set(key, value);
}
