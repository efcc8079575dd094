import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ViewHtml } from './view.types';

/** HTML documents by content hash: views whose sources produce the same document share one string. */
const byHash = new Map<string, string>();

/**
 * The HTML of one view. A string is hashed at once; a file is read and a function called on the first
 * read, and the document is then kept (under its sha256 content hash) for every later read.
 */
export class ViewContent {
  private loaded?: Promise<{ html: string; hash: string }>;

  constructor(private readonly source: ViewHtml) {
    if (typeof source === 'string') this.loaded = Promise.resolve(remember(source));
  }

  /** The document and its content hash (sha256, hex). */
  read(): Promise<{ html: string; hash: string }> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = undefined; // a failed load is retried on the next read
      throw error;
    });
    return this.loaded;
  }

  private async load(): Promise<{ html: string; hash: string }> {
    const source = this.source;
    if (typeof source === 'function') {
      const html = await source();
      if (typeof html !== 'string') throw new TypeError('a view html function must return a string');
      return remember(html);
    }
    return remember(await readFile(resolve((source as { file: string }).file), 'utf8'));
  }
}

function remember(html: string): { html: string; hash: string } {
  const hash = createHash('sha256').update(html).digest('hex');
  const known = byHash.get(hash);
  if (known !== undefined) return { html: known, hash };
  byHash.set(hash, html);
  return { html, hash };
}
