import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/paths';

const run = promisify(execFile);

/** Runs the fixture in a fresh node whose require of any @opentelemetry/* package throws. */
async function serveWithoutOpenTelemetry(arg: string) {
  const { stdout } = await run(
    process.execPath,
    [
      '--require',
      join(ROOT, 'test', 'fixtures', 'forbid-otel.cjs'),
      '--require',
      'ts-node/register/transpile-only',
      join(ROOT, 'test', 'fixtures', 'telemetry-off-server.ts'),
      arg,
    ],
    { cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.test.json') }, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as { result: { content: { text: string }[] }; loaded: string[] };
}

// ts-node compiles the fixture's whole import graph in each child: on a loaded 2-core machine that took over 15 s.
describe('telemetry off', () => {
  it.each(['off', 'default'])(
    'telemetry %s: a tool call is served and @opentelemetry/api is never required',
    async (arg) => {
      const { result, loaded } = await serveWithoutOpenTelemetry(arg);
      expect(result.content[0].text).toBe('pong');
      expect(loaded).toEqual([]);
    },
    90_000,
  );

  it('the guard works: with telemetry full, the same fixture fails to load @opentelemetry/api, with a clear error', async () => {
    // The require fails (the guard), and the application says what to do about it.
    await expect(serveWithoutOpenTelemetry('full')).rejects.toMatchObject({
      stderr: expect.stringContaining(
        "telemetry mode 'full' needs the optional peer dependency @opentelemetry/api: npm install @opentelemetry/api",
      ),
    });
  }, 90_000);
});
