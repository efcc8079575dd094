import { holdConsoleOnStderr } from '../../../src/kernel/console-redirect';

describe('holding the console on stderr', () => {
  let onStderr: string[];
  let stderr: jest.SpyInstance;
  let log: jest.SpyInstance;
  let info: jest.SpyInstance;
  beforeEach(() => {
    onStderr = [];
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      onStderr.push(String(chunk));
      return true;
    });
    // The console as the user left it: what it writes once no one holds it any more.
    log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    info = jest.spyOn(console, 'info').mockImplementation(() => undefined);
  });
  afterEach(() => {
    stderr.mockRestore();
    log.mockRestore();
    info.mockRestore();
  });

  it('writes console.log to stderr while held, and gives the console back once released', () => {
    const release = holdConsoleOnStderr();
    console.log('held %s', 'here');
    release();
    console.log('released');
    expect(onStderr.join('')).toBe('held here\n');
    expect(log.mock.calls).toEqual([['released']]);
  });

  it("keeps the console on stderr until every holder released it: one application's release leaves another's hold", () => {
    const first = holdConsoleOnStderr();
    const second = holdConsoleOnStderr();
    first();
    first(); // a second release by the same holder changes nothing
    console.info('still held');
    second();
    console.info('released');
    expect(onStderr.join('')).toBe('still held\n');
    expect(info.mock.calls).toEqual([['released']]);
  });
});
