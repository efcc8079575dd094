import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ViewHtml } from './view.types';

/**
 * The HTML of one view. A string is hashed at once; a file is read and a function called on the first
 * read, and the document is then kept, with its sha256 content hash, for every later read. Each view
 * keeps its own: nothing is shared between views, or between applications.
 */
export class ViewContent {
  private loaded?: Promise<{ html: string; hash: string }>;

  constructor(private readonly source: ViewHtml) {
    if (typeof source === 'string') this.loaded = Promise.resolve(hashed(source));
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
      return hashed(html);
    }
    return hashed(await readFile(resolve((source as { file: string }).file), 'utf8'));
  }
}

/** The document with its content hash. */
function hashed(html: string): { html: string; hash: string } {
  return { html, hash: createHash('sha256').update(html).digest('hex') };
}
