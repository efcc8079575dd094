import { spawn } from 'node:child_process';
import { EXT_TASKS_CLIENT, TASKS_EXT_FIXTURE } from '../helpers/paths';
import { spawnHttpServer } from '../helpers/spawn-server';

interface Report {
  era: string;
  capabilities: Record<string, unknown>;
  approve: {
    kind: string;
    taskId?: string;
    statuses: string[];
    status: string;
    text: string;
    error?: string;
    snapshot?: string;
    inlined?: string;
  };
  cancel: { kind: string; before?: string; status: string; after?: string; statusMessage?: string };
  fail: { kind: string; status: string; failed: boolean; message?: string; code?: number };
  quick: { kind: string; status: string; text: string };
  asked: { kind: string; message?: string; delivery: string; scope: string; taskId?: string }[];
}

/**
 * Runs the official tasks-extension client (@modelcontextprotocol/ext-tasks 0.2.2 on the SDK 2.x Client;
 * ESM only, so in its own process: test/fixtures/ext-tasks-client.mjs) against a real mcpkit server.
 */
function runClient(kind: 'http' | 'stdio', where: string): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EXT_TASKS_CLIENT, kind, where], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (!line) return reject(new Error(`ext-tasks client exited with ${code}: ${stdout}${stderr}`));
      resolve(JSON.parse(line.slice('RESULT '.length)) as Report);
    });
  });
}

function expectTasksToWork(report: () => Report) {
  it('negotiates the 2026-07-28 era and sees the tasks extension (cancellation and input responses)', () => {
    expect(report().era).toBe('modern');
    expect(report().capabilities).toMatchObject({ execution: true, cancellation: true, inputResponses: true });
  });

  it('runs a task that asks the user: working → input_required → answered by tasks/update → completed with its result', () => {
    const { approve, asked } = report();
    expect(approve).toMatchObject({ kind: 'task', snapshot: 'completed' });
    expect(approve.statuses).toEqual(expect.arrayContaining(['input_required', 'completed']));
    expect(approve.statuses.indexOf('input_required')).toBeLessThan(approve.statuses.indexOf('completed'));
    // The elicitation reached the application through the task, not as a request of the tools/call.
    expect(asked).toEqual([
      { kind: 'elicitation', message: 'Approve a lamp?', delivery: 'task-update', scope: 'task', taskId: approve.taskId },
    ]);
    expect(approve.inlined).toMatch(/^placed a lamp \(accept\) on pid \d+$/);
    // The package validates the inlined result as a 2026-07-28 CallToolResult.
    expect({ status: approve.status, error: approve.error }).toEqual({ status: 'completed', error: undefined });
    expect(approve.text).toMatch(/^placed a lamp \(accept\) on pid \d+$/);
  });

  it('cancels a running task: tasks/cancel, then tasks/get says cancelled', () => {
    expect(report().cancel).toEqual({
      kind: 'task',
      before: 'working',
      status: 'cancelled',
      after: 'cancelled',
      statusMessage: expect.any(String),
    });
  });

  it('reports a task whose handler failed as failed, with the JSON-RPC error', () => {
    expect(report().fail).toEqual({ kind: 'task', status: 'failed', failed: true, message: 'the widget exploded', code: -32603 });
  });

  it("answers an 'optional' tool that finishes within the immediate window with its result, no task", () => {
    expect(report().quick).toEqual({ kind: 'immediate', status: 'completed', text: expect.stringMatching(/^quick on pid \d+$/) });
  });
}

describe('tasks extension over Streamable HTTP, official ext-tasks client', () => {
  let report: Report;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    const server = await spawnHttpServer(TASKS_EXT_FIXTURE);
    stop = server.stop;
    report = await runClient('http', server.url);
  }, 60_000);
  afterAll(() => stop());
  expectTasksToWork(() => report);
});

describe('tasks extension over stdio, official ext-tasks client', () => {
  let report: Report;
  beforeAll(async () => {
    report = await runClient('stdio', TASKS_EXT_FIXTURE);
  }, 60_000);
  expectTasksToWork(() => report);
});
