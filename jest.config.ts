import type { Config } from 'jest';

/** What every project shares: ts-jest transpiles only, because `npm test` type-checks the whole tree with tsc first. */
const common = {
  testEnvironment: '<rootDir>/test/setup/process-faults.environment.ts',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  setupFiles: ['reflect-metadata'],
  // A test fails when an unhandled rejection or uncaught exception happens while it runs.
  setupFilesAfterEnv: ['<rootDir>/test/setup/no-unhandled-rejections.ts'],
} satisfies Config;

/**
 * Five projects, one command each: `npm run test:unit` (test/unit; the store contract lives in
 * src/testing, shipped as mcpkit/testing), `test:functional` (the public API in-process), `test:interop`
 * (compiled processes driven by the official SDK; it needs `dist/`, which `pretest:interop` builds),
 * `test:package` (the packed tarball installed into temporary projects, which needs the npm registry; and the
 * documentation site, built, compiled and crawled in Chromium), `test:examples` (each example of examples/ run
 * from its sources and driven by an official client). `npm test` runs all five.
 * The scripts end `--selectProjects x` with `--watchman` (the default anyway) so that a path given after
 * `npm run test:unit --` is a test path, not a second project name.
 */
const config: Config = {
  // Jest 29 reads testTimeout from the global config only; it applies to every project.
  testTimeout: 20_000,
  // Two test files at a time even on a 2-core machine (jest's default is one less than the cores): most
  // interop files spend their time waiting on processes they started, so the second worker fills that wait.
  maxWorkers: 2,
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.spec.ts'] },
    { ...common, displayName: 'functional', roots: ['<rootDir>/test/functional'], testMatch: ['**/*.spec.ts'] },
    { ...common, displayName: 'interop', roots: ['<rootDir>/test/interop'], testMatch: ['**/*.spec.ts'] },
    { ...common, displayName: 'package', roots: ['<rootDir>/test/package'], testMatch: ['**/*.spec.ts'] },
    // Each example's test runs it as its README says (tsx, from the sources) and drives it with an official client.
    {
      ...common,
      displayName: 'examples',
      roots: ['<rootDir>/examples'],
      testMatch: ['**/*.spec.ts'],
      moduleNameMapper: {
        '^mcpkit$': '<rootDir>/src/index.ts',
        '^mcpkit/console-to-stderr$': '<rootDir>/src/console-to-stderr.ts',
        '^mcpkit/(.*)$': '<rootDir>/src/$1/index.ts',
      },
    },
  ],
};

export default config;
