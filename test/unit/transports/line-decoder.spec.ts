import { LineDecoder } from '../../../src/transports/line-decoder';

describe('LineDecoder', () => {
  function decoder(max = 1024) {
    const lines: string[] = [];
    let oversize = 0;
    const d = new LineDecoder(
      max,
      (l) => lines.push(l),
      () => oversize++,
    );
    return { d, lines, oversize: () => oversize };
  }

  it('splits chunks into lines, joining lines split across chunks', () => {
    const { d, lines } = decoder();
    d.push(Buffer.from('{"a":1}\n{"b"'));
    d.push(Buffer.from(':2}\n{"c":3}'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    d.push(Buffer.from('\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('tolerates CRLF and skips blank lines', () => {
    const { d, lines } = decoder();
    d.push(Buffer.from('one\r\n\r\n  \ntwo\r\n'));
    expect(lines).toEqual(['one', 'two']);
  });

  it('skips lines of Unicode whitespace as trim() does, and keeps a line that merely starts with a multi-byte character', () => {
    const { d, lines } = decoder();
    d.push(Buffer.from('\u00a0\t\u2003\ufeff\n\u00e9t\u00e9\n \u00a0{}\n\u000b\u000c\r\n'));
    expect(lines).toEqual(['\u00e9t\u00e9', ' \u00a0{}']);
  });

  it('decodes every whole line of a chunk, keeping the partial one for the next', () => {
    const { d, lines } = decoder();
    d.push(Buffer.from('{"a":1}\r\n\n{"b":"\u00e9"}\n{"c"'));
    expect(lines).toEqual(['{"a":1}', '{"b":"\u00e9"}']);
    d.push(Buffer.from(':3}\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":"\u00e9"}', '{"c":3}']);
  });

  it('gives the lines, oversize reports and blanks of a byte-at-a-time reading whatever the chunking', () => {
    // A fixed pseudo-random stream: multi-byte and invalid UTF-8, CRLF, blank and oversize lines.
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const parts = ['{"a":1}', '\u00e9\u2603', ' ', '\r', '\u00a0', 'x'.repeat(40), '\ud83d\ude00'];
    const bytes: number[] = [];
    for (let i = 0; i < 400; i++) {
      const part = next(10);
      if (part < parts.length) bytes.push(...Buffer.from(parts[part]));
      else if (part === parts.length)
        bytes.push(0xc3, 0x28, 0xff); // invalid UTF-8
      else bytes.push(10);
    }
    const stream = Buffer.from(bytes);
    const events = (chunks: Buffer[]) => {
      const seen: string[] = [];
      const d = new LineDecoder(
        32,
        (l) => seen.push(`line ${l}`),
        () => seen.push('oversize'),
      );
      for (const c of chunks) d.push(c);
      d.flush();
      return seen;
    };
    const expected = events([...stream].map((b) => Buffer.from([b])));
    expect(expected.filter((e) => e === 'oversize').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.startsWith('line')).length).toBeGreaterThan(20);
    expect(events([stream])).toEqual(expected);
    for (let round = 0; round < 20; round++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < stream.length;) {
        const size = 1 + next(round % 2 === 0 ? 8 : 200);
        chunks.push(stream.subarray(at, at + size));
        at += size;
      }
      expect(events(chunks)).toEqual(expected);
    }
  });

  it('keeps multi-byte characters split across chunks intact', () => {
    const { d, lines } = decoder();
    const bytes = Buffer.from('"héllo ☃"\n');
    for (const b of bytes) d.push(Buffer.from([b]));
    expect(lines).toEqual(['"héllo ☃"']);
  });

  it('reports an oversize line once, skips it without buffering, and recovers at the next newline', () => {
    const { d, lines, oversize } = decoder(10);
    d.push(Buffer.from('0123456789ABC'));
    d.push(Buffer.from('DEFGHIJ'));
    expect(oversize()).toBe(1);
    d.push(Buffer.from('KLM\nok\n'));
    expect(oversize()).toBe(1);
    expect(lines).toEqual(['ok']);
    d.push(Buffer.from('this line is long\nfine\n'));
    expect(oversize()).toBe(2);
    expect(lines).toEqual(['ok', 'fine']);
  });

  it('emits a last line without newline on flush', () => {
    const { d, lines } = decoder();
    d.push(Buffer.from('tail'));
    d.flush();
    expect(lines).toEqual(['tail']);
  });

  it('decodes a long line that arrives in many chunks as one line', () => {
    const { d, lines } = decoder(64 * 1024 * 1024);
    for (let i = 0; i < 1000; i++) d.push(Buffer.alloc(1024, 0x61));
    d.push(Buffer.from('\n'));
    expect(lines).toEqual(['a'.repeat(1024 * 1000)]);
  });
});
