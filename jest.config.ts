import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  // `npm test` type-checks the whole tree with tsc first, so ts-jest only transpiles.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  setupFiles: ['reflect-metadata'],
  testTimeout: 20000,
};

export default config;
