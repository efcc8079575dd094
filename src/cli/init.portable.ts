/**
 * The files `mcpkit init --target bun|deno|workers|lambda` writes. These runtimes compile TypeScript
 * with esbuild-like transpilers that emit no decorator metadata, so the classes name what tsc would
 * have inferred: `input: AddInput` on each handler, `@inject(Token)` on each constructor parameter.
 */
import { installNote } from './init.container';
import { INPUT_CLASSES, type InitTemplateOptions, NODE_ENGINES } from './init.templates';

import {
  BUN_MAIN,
  BUN_TEST,
  DENO_MAIN,
  DENO_TEST,
  LAMBDA,
  LAMBDA_TEST,
  type PortableTarget,
  README,
  SAM,
  WORKER,
  WORKER_TEST,
  WRANGLER,
} from './init.portable-files';

export type { PortableTarget };
export const PORTABLE_APP_MODULE = `import 'reflect-metadata';
import { IsInt, IsOptional, IsString, Length } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Field, McpContext, McpModule, Prompt, Resource, Tool, userMessage } from 'mcpkit';

// No decorator metadata here (esbuild, Bun and Deno emit none): each handler names its input class
// and each constructor parameter its token.

${INPUT_CLASSES}
@injectable()
export class Adder {
  add(a: number, b: number): number {
    return a + b;
  }
}

@injectable()
export class CalculatorTools {
  constructor(@inject(Adder) private readonly adder: Adder) {}

  @Tool({ description: 'Adds two integers', input: AddInput, output: Sum, annotations: { readOnlyHint: true } })
  async add(input: AddInput, ctx: McpContext): Promise<Sum> {
    await ctx.log.info(\`adding \${input.a} and \${input.b}\`);
    return { sum: this.adder.add(input.a, input.b) };
  }

  @Resource({ uri: 'info://about', name: 'about', mimeType: 'text/plain', description: 'What this server does' })
  about(): string {
    return '__NAME__ adds numbers and writes greetings.';
  }

  @Prompt({ name: 'greeting', description: 'Asks the model to greet someone', input: GreetingArgs })
  greeting(args: GreetingArgs) {
    return [userMessage(\`Write a short greeting for \${args.name}\${args.language ? \` in \${args.language}\` : ''}.\`)];
  }
}

@McpModule({
  server: { name: '__NAME__', version: '0.1.0' },
  providers: [Adder, CalculatorTools],
})
export class AppModule {}
`;

/** A tools/call as a 2026-07-28 client sends it, and its answer read from JSON or from an SSE stream. */
export const CALL_ADD = `const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** POSTs tools/call add(a, b) to a fetch handler and returns the JSON-RPC answer. */
export async function callAdd(fetchHandler, a, b) {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a, b }, _meta: META } };
  const response = await fetchHandler(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        host: 'localhost',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'add',
      },
      body: JSON.stringify(body),
    }),
  );
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return JSON.parse(text);
  const messages = text.split('\\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)));
  return messages.find((message) => message.id === 1);
}
`;

/** Node's types for runtimes on the Node 24 line: Lambda's nodejs24.x, Deno's node: modules. */
const TYPES_NODE_24 = '^24.10.0';

const TS_COMPILER = {
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'bundler',
  lib: ['ES2022', 'DOM'],
  strict: true,
  experimentalDecorators: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
};

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** Bundles with esbuild; Node built-ins stay imports the runtime provides (`node:`). */
function buildScript(entry: string, outfile: string, format: 'esm' | 'cjs', platform: 'neutral' | 'node'): string {
  return `// Bundles ${entry} into ${outfile} with esbuild (it reads tsconfig.json's experimentalDecorators).
import { builtinModules } from 'node:module';
import { build } from 'esbuild';

const builtins = new Set(builtinModules.flatMap((m) => [m, \`node:\${m}\`]));

/** A require('fs') inside a CommonJS dependency becomes an import of node:fs, which the runtime provides. */
const nodeBuiltins = {
  name: 'node-builtins',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (!builtins.has(args.path)) return undefined;
      const path = args.path.startsWith('node:') ? args.path : \`node:\${args.path}\`;
      if (args.kind === 'require-call' && ${JSON.stringify(format)} === 'esm') return { path, namespace: 'node-builtin' };
      return { path, external: true };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: \`import * as m from \${JSON.stringify(args.path)}; module.exports = m.default ?? m;\`,
      loader: 'js',
    }));
  },
};

await build({
  entryPoints: [${JSON.stringify(entry)}],
  outfile: ${JSON.stringify(outfile)},
  bundle: true,
  format: ${JSON.stringify(format)},
  platform: ${JSON.stringify(platform)},
  target: 'es2022',
  mainFields: ['module', 'main'],
  conditions: ['workerd', 'worker', 'import', 'require', 'default'],
  plugins: [nodeBuiltins],
  logLevel: 'warning',
});
`;
}

/** The files of a project for `target`, by path. */
export function portableTemplates(target: PortableTarget, o: InitTemplateOptions): Record<string, string> {
  const dependencies = { mcpkit: o.mcpkit, ...o.peers };
  const common = {
    '.gitignore': 'node_modules/\ndist/\n.wrangler/\n.aws-sam/\n',
    'src/app.module.ts': PORTABLE_APP_MODULE.replaceAll('__NAME__', o.name),
    'README.md': README[target]
      .replace('__INSTALL__', () => installNote(o.mcpkit, o.version, target === 'bun' ? 'bun install' : 'npm install'))
      .replaceAll('__NAME__', o.name),
  };
  // Node runs the build and the test of the workers and lambda projects.
  const engines = target === 'workers' || target === 'lambda' ? { engines: NODE_ENGINES } : {};
  const pkg = (scripts: Record<string, string>, devDependencies: Record<string, string>) =>
    json({ name: o.name, version: '0.1.0', private: true, type: 'module', ...engines, scripts, dependencies, devDependencies });
  const tsconfig = (types: string[]) => json({ compilerOptions: { ...TS_COMPILER, types }, include: ['src', 'test'] });
  switch (target) {
    case 'bun':
      return {
        ...common,
        'package.json': pkg(
          { start: 'bun run src/main.ts', test: 'bun test', typecheck: 'tsc -p tsconfig.json' },
          { '@types/bun': '^1.4.4', typescript: '~5.9.2' },
        ),
        'tsconfig.json': tsconfig(['bun']),
        'src/main.ts': BUN_MAIN.replaceAll('__NAME__', o.name),
        'test/call-add.js': CALL_ADD,
        'test/app.test.ts': BUN_TEST,
      };
    case 'deno':
      return {
        ...common,
        // Deno's type check reads mcpkit's declarations, which refer to Node's types.
        'package.json': pkg({}, { '@types/node': TYPES_NODE_24 }),
        'deno.json': json({
          nodeModulesDir: 'manual',
          compilerOptions: { experimentalDecorators: true, lib: ['deno.window'] },
          tasks: { start: 'deno run --allow-net --allow-env --allow-read src/main.ts', test: 'deno test --allow-env --allow-read test/' },
        }),
        'src/main.ts': DENO_MAIN.replaceAll('__NAME__', o.name),
        'test/call-add.js': CALL_ADD,
        'test/app.test.ts': DENO_TEST,
      };
    case 'workers':
      return {
        ...common,
        'package.json': pkg(
          {
            build: 'node build.js',
            test: 'node build.js && node --test "test/*.test.js"',
            dev: 'wrangler dev',
            deploy: 'wrangler deploy',
          },
          // Pinned: its workerd must know wrangler.toml's compatibility_date (workerd 1.20261117.1 here).
          { esbuild: '^0.28.2', wrangler: '4.164.0', typescript: '~5.9.2' },
        ),
        'tsconfig.json': tsconfig([]),
        'build.js': buildScript('src/worker.ts', 'dist/worker.js', 'esm', 'neutral'),
        'wrangler.toml': WRANGLER.replaceAll('__NAME__', o.name),
        'src/worker.ts': WORKER,
        'test/call-add.js': CALL_ADD,
        'test/worker.test.js': WORKER_TEST,
      };
    case 'lambda':
      return {
        ...common,
        'package.json': pkg(
          { build: 'node build.js', test: 'node build.js && node --test "test/*.test.js"', deploy: 'npm run build && sam deploy --guided' },
          { esbuild: '^0.28.2', '@types/node': TYPES_NODE_24, typescript: '~5.9.2' },
        ),
        'tsconfig.json': tsconfig(['node']),
        'build.js': buildScript('src/lambda.ts', 'dist/index.cjs', 'cjs', 'node'),
        'template.yaml': SAM.replaceAll('__NAME__', o.name),
        'src/lambda.ts': LAMBDA,
        'test/call-add.js': CALL_ADD,
        'test/lambda.test.js': LAMBDA_TEST,
      };
  }
}
