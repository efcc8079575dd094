import { spawn } from 'node:child_process';
import { type FuzzInput, InputGenerator } from './fuzz-inputs';
import { type Answer, type FuzzBudget, INIT, isJsonRpcResponse, type Tally, taskIdOf, within, withinBudget } from './fuzz-tally';

/** stdio: one process, inputs pipelined (at most 16 owed answers outstanding). */
export async function fuzzStdio(script: string, rnd: () => number, budget: FuzzBudget, timeoutMs: number, tally: Tally): Promise<void> {
  const child = spawn(process.execPath, [script, '--stdio'], { stdio: 'pipe' });
  const gen = new InputGenerator(rnd, 'f');
  const owed = new Map<string, { input: FuzzInput; since: number }[]>();
  /** The last inputs written, for the report of a crash. */
  const recent: Buffer[] = [];
  const write = (bytes: Buffer) => {
    recent.push(bytes.subarray(0, 300));
    if (recent.length > 3) recent.shift();
    return child.stdin.write(Buffer.concat([bytes, Buffer.from('\n')]));
  };
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  child.stderr.resume();
  let buffer = '';
  let wake: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message: Answer;
      try {
        message = JSON.parse(line) as Answer;
      } catch {
        tally.fail('nonJsonRpc', undefined, `stdout line: ${line.slice(0, 200)}`);
        continue;
      }
      if (typeof message.method === 'string') {
        // A request from the server: refused, so that nothing waits on this client.
        if ('id' in message)
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'not supported by the fuzzer' } })}\n`,
          );
        continue;
      }
      const key = JSON.stringify(message.id);
      const waiting = owed.get(key);
      const entry = waiting?.shift();
      if (waiting && waiting.length === 0) owed.delete(key);
      const taskId = taskIdOf(message);
      if (taskId) gen.taskIds.push(taskId);
      if (entry) {
        tally.counts.answered++;
        tally.answer(entry.input, message);
      } else if (!isJsonRpcResponse(message)) {
        tally.fail('nonJsonRpc', undefined, line.slice(0, 300));
      }
    }
    wake?.();
  });
  child.stdin.on('error', () => undefined);
  const outstanding = () => [...owed.values()].reduce((n, list) => n + list.length, 0);
  const waitForOutput = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => (clearTimeout(timer), resolve());
    });
  const expire = (now: number) => {
    for (const [key, list] of owed) {
      while (list.length > 0 && now - list[0].since > timeoutMs)
        tally.fail('unanswered', list.shift()!.input, `no answer for id ${key.slice(0, 60)} within ${timeoutMs} ms`);
      if (list.length === 0) owed.delete(key);
    }
  };

  try {
    await stdioLoop();
  } finally {
    if (!exited) child.kill('SIGKILL');
  }

  async function stdioLoop(): Promise<void> {
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    tally.counts.owed++;
    owed.set('"init"', [
      { input: { bytes: Buffer.from(JSON.stringify(INIT)), owedId: '"init"', mutation: 'initialize' }, since: Date.now() },
    ]);
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    while (withinBudget(budget, tally) && !exited) {
      if (outstanding() >= 16) {
        await waitForOutput(50);
        expire(Date.now());
        continue;
      }
      if (rnd() < 0.03 && owed.size > 0) {
        // Cancel a request in flight (its answer is no longer owed), with a reason of any type.
        const [key, list] = owed.entries().next().value!; // the oldest: the likeliest to be still running
        const requestId: unknown = JSON.parse(key);
        if (typeof requestId === 'string' && requestId !== 'init') {
          list.shift();
          tally.counts.owed--;
          if (list.length === 0) owed.delete(key);
          tally.counts.sent++;
          write(gen.cancel(requestId));
          continue;
        }
      }
      const input = gen.next();
      tally.counts.sent++;
      if (input.owedId) {
        tally.counts.owed++;
        const list = owed.get(input.owedId) ?? [];
        list.push({ input, since: Date.now() });
        owed.set(input.owedId, list);
      }
      const ok = write(input.bytes);
      if (!ok) await Promise.race([new Promise<void>((resolve) => child.stdin.once('drain', resolve)), exit]);
      if (tally.counts.sent % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const drainUntil = Date.now() + timeoutMs;
    while (outstanding() > 0 && Date.now() < drainUntil && !exited) await waitForOutput(50);
    if (exited)
      tally.fail(
        'crashes',
        undefined,
        `exit code ${child.exitCode}, signal ${child.signalCode}; last inputs: ${recent.map((b) => b.toString('utf8')).join(' | ')}`,
      );
    expire(Number.POSITIVE_INFINITY);
    child.stdin.end();
    await within(exit, 5_000);
  }
}
