import { Writable } from 'node:stream';
import { holdConsoleOnStderr } from '../../../src/kernel/console-redirect';

describe('holding the console on stderr', () => {
  it('touches process.stderr only when something is logged, and then writes there', () => {
    const real = Object.getOwnPropertyDescriptor(process, 'stderr')!;
    const written: string[] = [];
    const stderr = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        done();
      },
    });
    let reads = 0;
    Object.defineProperty(process, 'stderr', { configurable: true, get: () => (reads++, stderr) });
    const release = holdConsoleOnStderr();
    try {
      expect(reads).toBe(0);
      console.log('built %s', 'lazily');
      expect(reads).toBeGreaterThan(0);
      expect(written.join('')).toBe('built lazily\n');
    } finally {
      release();
      Object.defineProperty(process, 'stderr', real);
    }
  });
});
