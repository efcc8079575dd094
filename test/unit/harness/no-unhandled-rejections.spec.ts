import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../helpers/paths';

interface JestJson {
  testResults: { message: string; assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

/**
 * The guard in test/setup must catch what Node reports on the real process, not on the copy of
 * `process` a test file sees. Proven on a fixture spec run by a separate jest process with the same
 * environment and setup file as every project.
 */
describe('no-unhandled-rejections guard', () => {
  let results: Map<string, { status: string; failure: string }>;
  let suiteMessage: string;

  beforeAll(() => {
    const config = {
      rootDir: ROOT,
      roots: ['<rootDir>/test/fixtures/harness'],
      testMatch: ['**/process-faults.fixture.ts'],
      testEnvironment: '<rootDir>/test/setup/process-faults.environment.ts',
      transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
      setupFiles: ['reflect-metadata'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/no-unhandled-rejections.ts'],
    };
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config), '--json', '--ci', '--colors=false'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, FORCE_COLOR: '0' },
      },
    );
    expect(run.status).toBe(1);
    const json = JSON.parse(run.stdout) as JestJson;
    expect(json.testResults).toHaveLength(1);
    suiteMessage = json.testResults[0].message;
    results = new Map(
      json.testResults[0].assertionResults.map((a) => [a.title, { status: a.status, failure: a.failureMessages.join('\n') }]),
    );
  }, 60_000);

  it.each([
    [
      'faulty: a promise rejected in src code that nobody awaits',
      'unhandled rejection during this test: Error: next() called multiple times',
    ],
    [
      'faulty: a floating rejection at the very end of a synchronous test',
      'unhandled rejection during this test: Error: floating rejection at the end',
    ],
    ['faulty: an exception thrown from a timer callback', 'uncaught exception during this test: Error: uncaught from a timer'],
    ['faulty: a rejection under fake timers', 'unhandled rejection during this test: Error: floating under fake timers'],
  ])('fails "%s" with the fault\'s message', (title, message) => {
    expect(results.get(title)).toEqual({ status: 'failed', failure: expect.stringContaining(message) });
  });

  it.each([['clean: the test after a faulty one is not blamed for it'], ['clean: a rejection that is handled']])('passes "%s"', (title) => {
    expect(results.get(title)?.status).toBe('passed');
  });

  it('fails the file for a fault in an afterAll hook, or after the last hook has run', () => {
    expect(suiteMessage).toContain('unhandled rejection in an afterAll hook: Error: floating in afterAll');
    expect(suiteMessage).toContain('unhandled rejection after the last test: Error: floating after the last hook');
  });
});
