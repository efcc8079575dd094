/** One Server-Sent Event. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Parses a text/event-stream per the WHATWG rules: lines end in CRLF, LF or CR; `data:` lines join
 * with "\n"; one space after the colon is dropped; lines starting ':' are comments; an empty line
 * dispatches. An event with no data is not dispatched. A line longer than `maxLineChars`, or an event
 * whose data lines add up to more than `maxEventChars`, fails the stream (a hostile server cannot make
 * the client buffer without bound).
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private dataChars = 0;
  private event = '';
  private id?: string;
  private lastWasCr = false;
  /** The id of the last event seen (for Last-Event-ID on a reconnect). */
  lastEventId?: string;
  /** Server-suggested reconnection delay, in ms. */
  retryMs?: number;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly maxLineChars = 16 * 1024 * 1024,
    private readonly maxEventChars = 64 * 1024 * 1024,
  ) {}

  push(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 && this.lastWasCr && i === start && this.buffer === '') {
        // the LF of a CRLF split across lines already ended
        this.lastWasCr = false;
        start = i + 1;
        continue;
      }
      if (c === 10 || c === 13) {
        const line = this.buffer + text.slice(start, i);
        this.buffer = '';
        this.lastWasCr = c === 13;
        if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
        start = i + 1;
        this.line(line);
      } else {
        this.lastWasCr = false;
      }
    }
    this.buffer += text.slice(start);
    if (this.buffer.length > this.maxLineChars) throw new SseLimitError(`SSE line longer than ${this.maxLineChars} characters`);
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.dataChars += value.length + 1;
      if (this.dataChars > this.maxEventChars) throw new SseLimitError(`SSE event larger than ${this.maxEventChars} characters`);
      this.data.push(value);
    } else if (field === 'event') this.event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.id = value;
    } else if (field === 'retry' && /^\d+$/.test(value) && Number.isSafeInteger(Number(value))) this.retryMs = Number(value);
  }

  private dispatch(): void {
    if (this.id !== undefined) this.lastEventId = this.id;
    const data = this.data.join('\n');
    const hasData = this.data.length > 0;
    const event: SseEvent = { event: this.event || 'message', data, ...(this.id !== undefined ? { id: this.id } : {}) };
    this.data = [];
    this.dataChars = 0;
    this.event = '';
    this.id = undefined;
    if (hasData) this.onEvent(event);
  }
}

/** A stream that broke a size limit: not resumed (the server would only send the same again). */
export class SseLimitError extends Error {}
