import { parseSse } from './http-app';

export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
  event?: string;
}

/** Reads an SSE response as it arrives; `comments` counts keep-alive comment lines. */
export class SseReader {
  readonly events: SseEvent[] = [];
  comments = 0;
  ended = false;
  private buffer = '';
  private readonly done: Promise<void>;
  private readonly controller = new AbortController();

  private constructor(readonly response: Response) {
    this.done = this.pump();
  }

  static async open(url: string, init: RequestInit): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, { ...init, signal: controller.signal });
    const reader = new SseReader(response);
    reader.controller.signal.addEventListener('abort', () => controller.abort());
    return reader;
  }

  /** Messages (JSON data) received so far. */
  get messages(): Record<string, unknown>[] {
    return this.events.filter((e) => e.data).map((e) => JSON.parse(e.data) as Record<string, unknown>);
  }

  async waitFor(predicate: (r: SseReader) => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) throw new Error(`timed out; events so far: ${JSON.stringify(this.events)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Drops the connection, as a network failure would. */
  async disconnect(): Promise<void> {
    this.controller.abort();
    await this.done.catch(() => undefined);
  }

  finished(): Promise<void> {
    return this.done;
  }

  private async pump(): Promise<void> {
    if (!this.response.body) return;
    const reader = this.response.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          if (block.startsWith(':')) this.comments++;
          else this.events.push(...parseSse(`${block}\n\n`));
        }
      }
    } catch {
      // aborted
    } finally {
      this.ended = true;
    }
  }
}
