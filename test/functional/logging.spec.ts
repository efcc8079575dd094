import { injectable } from 'tsyringe';
import { EmptyInput, LogFields, McpApplication, McpModule, pinoLogger, StderrLogger, Tool } from '../../src';
import { ACCEPT_BOTH, initializeBody } from '../helpers/http-app';
import { httpServer } from '../../src/http';

@injectable()
class FailingTools {
  @Tool({ description: 'Fails unexpectedly' })
  broken(_: EmptyInput): string {
    throw new Error('wires crossed');
  }
}

@McpModule({ providers: [FailingTools], server: { name: 'logging', version: '1.0.0' } })
class LoggingModule {}

/** Captures what a StderrLogger writes to stderr while `fn` runs. */
function captureStderr(fn: () => void): string[] {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

describe('the server log', () => {
  it('drops entries below its level and writes text lines with fields', () => {
    const logger = new StderrLogger({ name: 'srv', level: 'warn' });
    const lines = captureStderr(() => {
      logger.debug('not shown');
      logger.info('not shown either');
      logger.warn('careful', { sessionId: 's1' });
      logger.error('broke', new Error('boom'), { requestId: 7, method: 'tools/call' });
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('[srv] warn: careful sessionId=s1\n');
    expect(lines[1]).toMatch(/^\[srv\] error: broke requestId=7 method=tools\/call\nError: boom/);
  });

  it('keeps the old constructor and line format (a name, info without a level)', () => {
    expect(captureStderr(() => new StderrLogger('old').info('hello'))).toEqual(['[old] hello\n']);
  });

  it('writes JSON lines when asked, with the error under err', () => {
    const logger = new StderrLogger({ format: 'json', level: 'debug' });
    const lines = captureStderr(() => {
      logger.debug('looking', { traceId: 'abc' });
      logger.error('broke', new Error('boom'), { requestId: 'r1' });
    });
    expect(lines.every((l) => l.indexOf('\n') === l.length - 1)).toBe(true);
    const [debug, error] = lines.map((l) => JSON.parse(l));
    expect(debug).toMatchObject({ level: 'debug', name: 'mcpkit', msg: 'looking', traceId: 'abc' });
    expect(error).toMatchObject({ level: 'error', msg: 'broke', requestId: 'r1', err: { type: 'Error', message: 'boom' } });
  });

  it("maps calls to pino's (obj, msg) signature", () => {
    const calls: [string, object, string | undefined][] = [];
    const fake = Object.fromEntries(
      ['error', 'warn', 'info', 'debug'].map((level) => [level, (obj: object, msg?: string) => void calls.push([level, obj, msg])]),
    );
    const logger = pinoLogger(fake as never);
    const boom = new Error('boom');
    logger.error('broke', boom, { requestId: 1 });
    logger.warn('careful');
    logger.info('hi', { sessionId: 's' });
    logger.debug!('detail', { traceId: 't' });
    expect(calls).toEqual([
      ['error', { requestId: 1, err: boom }, 'broke'],
      ['warn', {}, 'careful'],
      ['info', { sessionId: 's' }, 'hi'],
      ['debug', { traceId: 't' }, 'detail'],
    ]);
  });

  it('adds the request id, method and session id to what is logged while a request fails over HTTP', async () => {
    const entries: { message: string; error?: unknown; fields?: LogFields }[] = [];
    const app = await McpApplication.create(LoggingModule, {
      logger: {
        error: (message, error, fields) => void entries.push({ message, error, fields }),
        warn: () => undefined,
        info: () => undefined,
      },
    });
    try {
      const { url } = await app.listen(httpServer({ port: 0, responseMode: 'json' }));
      const post = (body: unknown, sessionId?: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
          body: JSON.stringify(body),
        });
      const init = await post(initializeBody());
      const sessionId = init.headers.get('mcp-session-id')!;
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
      const res = await post({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'broken', arguments: {} } }, sessionId);
      expect(((await res.json()) as { result: { isError: boolean } }).result.isError).toBe(true);
      const failure = entries.find((e) => e.message.includes('threw'));
      expect(failure?.fields).toMatchObject({ requestId: 'call-1', method: 'tools/call', sessionId });
      expect((failure?.error as Error).message).toBe('wires crossed');
    } finally {
      await app.close();
    }
  });
});
