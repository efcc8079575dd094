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
      const part = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.pieces.length === 0 ? part : Buffer.concat([...this.pieces, part], this.size + part.length);
      this.pieces = [];
      this.size = 0;
      if (line.length > this.maxBytes) this.onOversize();
      else this.emit(line);
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
    if (this.pieces.length > 0 && !this.skipping) this.emit(Buffer.concat(this.pieces, this.size));
    this.pieces = [];
    this.size = 0;
    this.skipping = false;
  }

  private emit(line: Buffer): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === 13) end--; // CRLF
    const text = line.toString('utf8', 0, end);
    if (text.trim().length > 0) this.onLine(text);
  }
}
