import { spawn } from 'node:child_process';
import { type FuzzInput, InputGenerator } from './fuzz-inputs';
import { type Answer, type FuzzBudget, INIT, type Tally, taskIdOf, within, withinBudget } from './fuzz-tally';

/** Streamable HTTP: one session, 8 requests in flight. */
export async function fuzzHttp(script: string, rnd: () => number, budget: FuzzBudget, timeoutMs: number, tally: Tally): Promise<void> {
  const child = spawn(process.execPath, [script], { stdio: 'pipe', env: { ...process.env, PORT: '0', HOST: '127.0.0.1' } });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  child.stdout.resume();
  const url = await new Promise<string | undefined>((resolve) => {
    let err = '';
    const timer = setTimeout(() => resolve(undefined), 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const m = /serving MCP at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
      if (err.length > 100_000) err = err.slice(-10_000);
    });
    void exit.then(() => resolve(undefined));
  });
  if (!url) {
    tally.fail('crashes', undefined, 'the HTTP server did not start');
    child.kill('SIGKILL');
    return;
  }
  const gen = new InputGenerator(rnd, 'h');
  let sessionId = '';
  /** Requests in flight by id, and those the fuzzer cancelled (owed no answer then). */
  const inflight = new Set<string>();
  const cancelled = new Set<string>();
  const post = async (
    body: Buffer | string,
    input?: FuzzInput,
    headerChange?: Record<string, string>,
  ): Promise<{ status: number; type: string; text: string; session: string | null } | undefined> => {
    try {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      };
      for (const [name, value] of Object.entries(headerChange ?? {})) {
        if (value === '') delete headers[name];
        else headers[name] = value;
      }
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return {
        status: res.status,
        type: res.headers.get('content-type') ?? '',
        text: await res.text(),
        session: res.headers.get('mcp-session-id'),
      };
    } catch (error) {
      const wasCancelled = input?.owedId !== undefined && cancelled.has(input.owedId);
      if (!exited && !wasCancelled)
        tally.fail('unanswered', input, `HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
  const initialize = async () => {
    sessionId = '';
    const res = await post(JSON.stringify(INIT));
    sessionId = res?.session ?? '';
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  };
  await initialize();

  /** Header changes: each is answered by an HTTP error with a JSON-RPC body (id null), never by the method. */
  const HEADER_CHANGES: Record<string, string>[] = [
    { 'mcp-session-id': '' },
    { 'mcp-session-id': 'f'.repeat(32) },
    { 'mcp-session-id': 'x'.repeat(5_000) },
    { 'mcp-protocol-version': '1999-01-01' },
    { 'content-type': 'text/plain' },
    { accept: 'application/json' },
  ];
  const one = async (generated: FuzzInput) => {
    if (rnd() < 0.03 && inflight.size > 0) {
      const key = inflight.values().next().value!; // the oldest: the likeliest to be still running
      const requestId: unknown = JSON.parse(key);
      if (typeof requestId === 'string') {
        cancelled.add(key);
        tally.counts.sent++;
        const cancel: FuzzInput = { bytes: gen.cancel(requestId), mutation: 'cancel in flight', method: 'notifications/cancelled' };
        const res = await post(cancel.bytes);
        if (res && !(res.status === 202 && res.text === ''))
          tally.fail('nonJsonRpc', cancel, `a cancellation was answered ${res.status} ${res.text.slice(0, 200)}`);
        return;
      }
    }
    if (generated.owedId) inflight.add(generated.owedId);
    try {
      await request(generated);
    } finally {
      if (generated.owedId) inflight.delete(generated.owedId);
      if (generated.owedId) cancelled.delete(generated.owedId);
    }
  };
  const request = async (generated: FuzzInput) => {
    const headerChange = rnd() < 0.1 ? HEADER_CHANGES[Math.floor(rnd() * HEADER_CHANGES.length)] : undefined;
    // An initialize without a session header legitimately opens a session and answers.
    const input = headerChange
      ? { ...generated, owedId: undefined, mutation: `${generated.mutation}; headers ${JSON.stringify(headerChange).slice(0, 60)}` }
      : generated;
    tally.counts.sent++;
    if (input.owedId) tally.counts.owed++;
    const res = await post(input.bytes, input, headerChange);
    if (!res) return;
    if (input.owedId && cancelled.has(input.owedId)) {
      // Cancelled: no answer is owed (204, or whatever came first); a body must still be JSON-RPC.
      tally.counts.owed--;
      if (res.status === 204 || res.text === '') return;
      if (res.type.startsWith('application/json')) {
        try {
          JSON.parse(res.text);
        } catch {
          tally.fail('nonJsonRpc', input, `${res.status} ${res.text.slice(0, 200)}`);
        }
      }
      return;
    }
    if (!headerChange && res.status === 404 && /session/i.test(res.text)) return initialize(); // the session was closed: start another
    if (res.status === 202 && res.text === '') {
      if (input.owedId) tally.fail('unanswered', input, 'a request was answered 202 Accepted');
      return;
    }
    const messages: unknown[] = [];
    if (res.type.startsWith('application/json')) {
      try {
        messages.push(JSON.parse(res.text));
      } catch {
        return tally.fail('nonJsonRpc', input, `${res.status} ${res.type}: ${res.text.slice(0, 200)}`);
      }
    } else if (res.type.startsWith('text/event-stream')) {
      for (const block of res.text.split('\n\n')) {
        const data = block
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('');
        if (!data) continue;
        try {
          messages.push(JSON.parse(data));
        } catch {
          return tally.fail('nonJsonRpc', input, `SSE data: ${data.slice(0, 200)}`);
        }
      }
    } else {
      return tally.fail('nonJsonRpc', input, `${res.status} ${res.type}: ${res.text.slice(0, 200)}`);
    }
    const responses = messages.filter((m) => typeof m !== 'object' || m === null || !('method' in m));
    for (const m of responses) {
      if (typeof m === 'object' && m !== null) {
        const taskId = taskIdOf(m as Answer);
        if (taskId) gen.taskIds.push(taskId);
      }
    }
    const mine = input.owedId ? responses.find((m) => JSON.stringify((m as Answer)?.id) === input.owedId) : responses[responses.length - 1];
    if (input.owedId && !mine)
      return tally.fail('unanswered', input, `${res.status}: no answer with id ${input.owedId.slice(0, 60)} in ${res.text.slice(0, 200)}`);
    if (mine !== undefined) {
      if (input.owedId) tally.counts.answered++;
      tally.answer(input, mine);
    }
  };
  const worker = async () => {
    while (withinBudget(budget, tally) && !exited) await one(gen.next());
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
    if (exited) tally.fail('crashes', undefined, `exit code ${child.exitCode}, signal ${child.signalCode}`);
    child.kill('SIGTERM');
    await within(exit, 5_000);
  } finally {
    if (!exited) child.kill('SIGKILL');
  }
}
