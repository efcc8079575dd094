/**
 * The compiler settings mcpkit's decorators need, as shown in error messages: TypeScript's
 * experimental decorators with their metadata, and for vitest a transform that emits the metadata.
 */
export const DECORATOR_SETUP = [
  'In tsconfig.json (tsc, ts-jest, tsx and vitest all read it):',
  '  "compilerOptions": { "experimentalDecorators": true, "emitDecoratorMetadata": true }',
  'Under vitest 3 or older, also transpile with SWC so that parameter types are emitted (vitest 4 emits them):',
  "  npm install -D unplugin-swc @swc/core, and in vitest.config.ts: import swc from 'unplugin-swc'; export default defineConfig({ plugins: [swc.vite()] })",
].join('\n');
