// Lint: typescript-eslint with type information (promises, exhaustiveness, unsafe any), Prettier for form.
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'lib/',
      'coverage/',
      'node_modules/',
      'docs/.vitepress/cache/',
      'docs/.vitepress/dist/',
      '**/*.mjs',
      '**/*.cjs',
      '**/*.js',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise is awaited, returned, or handed to something that handles its rejection (STYLE.md habit 11).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // `typeof import('…')` types the modules loaded on first use (a stdio server never loads Koa, auth or telemetry).
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // An async method that awaits nothing still turns a throw into a rejection, as its interface promises.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped bodies (supertest, raw JSON-RPC) on purpose: they assert on what the wire carried.
    files: ['test/**/*.ts', 'examples/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  prettier,
);
