import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CONFORMANCE_MAIN, ROOT } from '../helpers/paths';
import { spawnHttpServer } from '../helpers/spawn-server';

const run = promisify(execFile);
const CLIENT = join(ROOT, 'test', 'interop', 'ext-tasks', 'ext-tasks-client.mjs');

/**
 * The official client of the 2026-07-28 tasks extension (@modelcontextprotocol/ext-tasks, ESM only:
 * driven from a child process) against samples/conformance over real HTTP: it validates every wire
 * shape with its own schemas, answers input requests before and inside tasks, and cancels.
 */
describe('tasks extension with the official @modelcontextprotocol/ext-tasks client', () => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>>;
  beforeAll(async () => (server = await spawnHttpServer(CONFORMANCE_MAIN)), 30_000);
  afterAll(() => server.stop());

  it('runs tasks to completion, failure and cancellation, with input by multi round-trip and by tasks/update', async () => {
    const { stdout } = await run(process.execPath, [CLIENT, server.url], { timeout: 60_000 });
    const report = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(report).toEqual({
      slow: { kind: 'task', status: 'completed', text: 'Computed ext in 1 s', isError: false },
      failing: { kind: 'task', status: 'completed', text: 'The job failed', isError: true },
      protocolError: { kind: 'task', status: 'failed', error: 'The job failed with a protocol error' },
      confirm: { kind: 'task', status: 'completed', text: 'Deleted ext.txt', isError: false },
      mrtrThenTask: { kind: 'task', status: 'completed', text: 'Hello from the task, Ada!', isError: false },
      cancelled: { kind: 'task', status: 'cancelled' },
      inputs: [
        { kind: 'elicitation', scope: 'task', delivery: 'task-update' },
        { kind: 'elicitation', scope: 'request', delivery: 'request-retry' },
      ],
    });
  }, 70_000);
});
