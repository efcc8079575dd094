/**
 * Splits a byte stream into newline-delimited lines without copying the buffered bytes on every
 * chunk: pieces are kept as they arrive and joined once, when their line ends (O(1) amortised per
 * byte). A line longer than `maxBytes` is reported once and skipped up to its newline, never buffered.
 */
export class LineDecoder {
  private pieces: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(10);
    // The end of a line begun in an earlier chunk (or of an oversize one being skipped).
    if (nl >= 0 && (this.pieces.length > 0 || this.skipping)) {
      if (this.skipping) this.skipping = false;
      else {
        const line = Buffer.concat([...this.pieces, chunk.subarray(0, nl)], this.size + nl);
        this.pieces = [];
        this.size = 0;
        if (line.length > this.maxBytes) this.onOversize();
        else this.emit(line.toString('utf8'));
      }
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (nl >= 0) {
      const last = chunk.lastIndexOf(10);
      start = last - start > this.maxBytes ? this.lineByLine(chunk, start) : this.wholeLines(chunk, start, last);
    }
    if (start < chunk.length && !this.skipping) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.maxBytes) {
        this.pieces = [];
        this.size = 0;
        this.skipping = true;
        this.onOversize();
      } else {
        this.pieces.push(rest);
      }
    }
  }

  /** Emits a last line that had no newline (the stream ended). */
  flush(): void {
    if (this.pieces.length > 0 && !this.skipping) this.emit(Buffer.concat(this.pieces, this.size).toString('utf8'));
    this.pieces = [];
    this.size = 0;
    this.skipping = false;
  }

  /**
   * The lines of `chunk` from `start` to its last newline `last`, decoded in one call and cut at the
   * text's newlines (a newline byte never occurs inside a UTF-8 sequence, so they are the chunk's):
   * decoding each line by itself cost more than parsing it. Called only when the whole span fits in
   * `maxBytes`, so every line does. Returns where the rest of the chunk starts.
   */
  private wholeLines(chunk: Buffer, start: number, last: number): number {
    const text = chunk.toString('utf8', start, last);
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      this.emit(text.slice(from, nl));
      from = nl + 1;
    }
    this.emit(from === 0 ? text : text.slice(from));
    return last + 1;
  }

  /** The lines of a chunk that holds an oversize one: each decoded alone, the oversize one never. */
  private lineByLine(chunk: Buffer, start: number): number {
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      if (nl - start > this.maxBytes) this.onOversize();
      else this.emit(chunk.toString('utf8', start, nl));
      start = nl + 1;
    }
    return start;
  }

  /** Emits `line` (without a CR before its end), unless it is blank. */
  private emit(line: string): void {
    const end = line.length > 0 && line.charCodeAt(line.length - 1) === 13 ? line.length - 1 : line.length; // CRLF
    if (!blank(line, end)) this.onLine(end === line.length ? line : line.slice(0, end));
  }
}

/**
 * True when the text is empty or only whitespace, as `trim()` decides: ASCII whitespace is tested in
 * place; a line with a character beyond ASCII before anything else is trimmed.
 */
function blank(text: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) continue;
    return c < 0x80 ? false : text.slice(i, end).trim().length === 0;
  }
  return true;
}
