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
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      const from = start;
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.pieces.length === 0) {
        // The usual case, a whole line in this chunk: decoded in place, no Buffer view of it made.
        if (nl - from > this.maxBytes) this.onOversize();
        else this.emit(chunk, from, nl);
        continue;
      }
      const line = Buffer.concat([...this.pieces, chunk.subarray(from, nl)], this.size + nl - from);
      this.pieces = [];
      this.size = 0;
      if (line.length > this.maxBytes) this.onOversize();
      else this.emit(line, 0, line.length);
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
    if (this.pieces.length > 0 && !this.skipping) {
      const line = Buffer.concat(this.pieces, this.size);
      this.emit(line, 0, line.length);
    }
    this.pieces = [];
    this.size = 0;
    this.skipping = false;
  }

  /** Emits bytes `start` to `end` of `bytes` as a line, unless they are blank. */
  private emit(bytes: Buffer, start: number, end: number): void {
    if (end > start && bytes[end - 1] === 13) end--; // CRLF
    if (blank(bytes, start, end)) return;
    this.onLine(bytes.toString('utf8', start, end));
  }
}

/**
 * True when the bytes are empty or only whitespace: ASCII whitespace is tested in place; a line with a
 * byte beyond ASCII before anything else is decoded and trimmed (Unicode spaces count as blank).
 */
function blank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) continue;
    return b < 0x80 ? false : bytes.toString('utf8', i, end).trim().length === 0;
  }
  return true;
}
