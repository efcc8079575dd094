import { DOCKERIGNORE, dockerfile, installNote } from './init.container';

/** The files of a new project, by path. Kept as plain text so a reader sees exactly what `init` writes. */
export interface InitTemplateOptions {
  readonly name: string;
  /** The dependency spec of mcpkit itself. */
  readonly mcpkit: string;
  /** The version of this mcpkit (the name of its tarball, in the README). */
  readonly version: string;
  /** Version ranges of mcpkit's peers (reflect-metadata, class-validator, class-transformer, tsyringe). */
  readonly peers: Readonly<Record<string, string>>;
  /** Also a skills/ folder with one skill, served by the module (the Skills extension). */
  readonly skills?: boolean;
}

/** The Node.js lines a project supports: its engines, and the @types/node of the oldest. */
export const NODE_ENGINES = { node: '>=22' };

const DEV_DEPENDENCIES = {
  '@types/jest': '^29.5.14',
  '@types/node': '^22.20.7',
  jest: '^29.7.0',
  'ts-jest': '^29.4.0',
  typescript: '~5.9.2',
};

export function initTemplates(o: InitTemplateOptions): Record<string, string> {
  const packageJson = {
    name: o.name,
    version: '0.1.0',
    // What desktop clients show for the bundle `mcpkit pack` makes: the bundle format requires both.
    description: 'An MCP server that adds numbers and writes greetings',
    author: `The ${o.name} authors`,
    private: true,
    engines: NODE_ENGINES,
    main: 'dist/src/main.js',
    scripts: {
      build: 'tsc -p tsconfig.json',
      start: 'npm run -s build && node dist/src/main.js',
      dev: 'mcpkit dev',
      inspect: 'mcpkit inspect',
      test: 'jest',
    },
    dependencies: { mcpkit: o.mcpkit, ...o.peers },
    devDependencies: DEV_DEPENDENCIES,
    jest: {
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      transform: { '^.+\\.ts$': 'ts-jest' },
      setupFiles: ['reflect-metadata'],
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'commonjs',
      lib: ['ES2022'],
      types: ['node', 'jest'],
      strict: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
      skipLibCheck: true,
      sourceMap: true,
      rootDir: '.',
      outDir: 'dist',
    },
    include: ['src', 'test'],
  };
  return {
    'package.json': JSON.stringify(packageJson, null, 2) + '\n',
    'tsconfig.json': JSON.stringify(tsconfig, null, 2) + '\n',
    '.gitignore': 'node_modules/\ndist/\n*.mcpb\n',
    '.dockerignore': DOCKERIGNORE,
    Dockerfile: dockerfile(o.skills === true).replaceAll('__NAME__', o.name),
    'src/app.module.ts': (o.skills ? withSkills(APP_MODULE) : APP_MODULE).replaceAll('__NAME__', o.name),
    'src/compile-cache.ts': COMPILE_CACHE,
    'src/main.ts': MAIN.replaceAll('__NAME__', o.name),
    'test/app.module.spec.ts': o.skills ? TEST.replace(/\n}\);\n$/, SKILLS_TEST) : TEST,
    'README.md': (o.skills ? README + SKILLS_README : README)
      .replace('__INSTALL__', () => installNote(o.mcpkit, o.version, 'npm install'))
      .replaceAll('__NAME__', o.name),
    ...(o.skills ? { 'skills/adding-numbers/SKILL.md': SKILL } : {}),
  };
}

/** The module serving the skills/ folder at the project's root. */
function withSkills(module: string): string {
  return module
    .replace('import { IsInt', "import { basename, dirname, join } from 'node:path';\nimport { IsInt")
    .replace('\n@McpModule({', `\n${SKILLS_FOLDER}\n@McpModule({`)
    .replace('  providers: [CalculatorTools],\n', '  providers: [CalculatorTools],\n  skills: { folders: [SKILLS] },\n');
}

/** Where the generated module finds skills/, whether it runs from src/ or from its build. */
const SKILLS_FOLDER = `// The skills folder at the project's root: one level up from src/ (tests, mcpkit dev), two from dist/src/ (builds).
const SKILLS = join(__dirname, basename(dirname(__dirname)) === 'dist' ? '../..' : '..', 'skills');
`;

const SKILL = `---
name: adding-numbers
description: Add up a list of numbers exactly with this server's add tool, two at a time
---

# Adding numbers

The \`add\` tool adds two integers exactly. To total a list, add the first two, then add each
next number to the running sum. Report the final sum, and say which numbers were not integers.
`;

const SKILLS_TEST = `

  it('serves its skills', async () => {
    const { skills } = (await client.request('skills/list', {})) as { skills: { uri: string }[] };
    expect(skills.map((s) => s.uri)).toEqual(['skill://adding-numbers/SKILL.md']);
    const read = (await client.request('resources/read', { uri: 'skill://adding-numbers/SKILL.md' })) as { contents: { text: string }[] };
    expect(read.contents[0].text).toContain('# Adding numbers');
  });
});
`;

const SKILLS_README = `
Skills (instructions for the model, served with the Skills extension) live in \`skills/\`: each folder with a
\`SKILL.md\` is one, and edits are picked up while the server runs.
`;

/** The input and output classes of a new project's tools and prompt, the same for every target. */
export const INPUT_CLASSES = `export class AddInput {
  @Field('The first number') @IsInt() a!: number;
  @Field('The second number') @IsInt() b!: number;
}

export class Sum {
  @IsInt() sum!: number;
}

export class GreetingArgs {
  @Field('Who to greet') @IsString() @Length(1, 40) name!: string;
  @Field('The language of the greeting') @IsOptional() @IsString() language?: string;
}
`;

const APP_MODULE = `import { IsInt, IsOptional, IsString, Length } from 'class-validator';
import { injectable } from 'tsyringe';
import { Field, McpContext, McpModule, Prompt, Resource, Tool, userMessage } from 'mcpkit';

${INPUT_CLASSES}
@injectable()
export class CalculatorTools {
  @Tool({ description: 'Adds two integers', output: Sum, annotations: { readOnlyHint: true } })
  async add(input: AddInput, ctx: McpContext): Promise<Sum> {
    await ctx.log.info(\`adding \${input.a} and \${input.b}\`);
    return { sum: input.a + input.b };
  }

  @Resource({ uri: 'info://about', name: 'about', mimeType: 'text/plain', description: 'What this server does' })
  about(): string {
    return '__NAME__ adds numbers and writes greetings.';
  }

  @Prompt({ name: 'greeting', description: 'Asks the model to greet someone' })
  greeting(args: GreetingArgs) {
    return [userMessage(\`Write a short greeting for \${args.name}\${args.language ? \` in \${args.language}\` : ''}.\`)];
  }
}

@McpModule({
  server: { name: '__NAME__', version: '0.1.0' },
  providers: [CalculatorTools],
})
export class AppModule {}
`;

const COMPILE_CACHE = `import { enableCompileCache } from 'node:module';

// Imported first by main.ts: Node keeps the compiled code of the modules loaded after this in its compile cache
// (NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1 turns it off), so later starts skip compiling them.
enableCompileCache?.();
`;

const MAIN = `#!/usr/bin/env node
import './compile-cache';
import 'reflect-metadata';
import { McpApplication } from 'mcpkit';
import { httpServer } from 'mcpkit/http';
import { stdio } from 'mcpkit/stdio';
import { AppModule } from './app.module';

/**
 * Serves over Streamable HTTP on $HOST:$PORT/mcp (default 127.0.0.1:3000), or over stdio with --stdio.
 * Bound to another address than loopback (HOST=0.0.0.0 in a container), the server still checks the Host
 * header: ALLOWED_HOSTS names the host names clients use (comma-separated), besides localhost and 127.0.0.1.
 */
async function main(): Promise<void> {
  const app = await McpApplication.create(AppModule);
  app.enableShutdownHooks();
  if (process.argv.includes('--stdio')) {
    await app.listen(stdio());
    process.stderr.write('__NAME__: serving MCP over stdio\\n');
    return;
  }
  const allowedHosts = ['localhost', '127.0.0.1', '[::1]', ...(process.env.ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean)];
  const { url } = await app.listen(
    httpServer({ host: process.env.HOST || '127.0.0.1', port: Number(process.env.PORT ?? 3000), allowedHosts, dnsRebindingProtection: true }),
  );
  process.stderr.write(\`__NAME__: serving MCP at \${url}\\n\`);
}

main().catch((error: unknown) => {
  process.stderr.write(\`__NAME__: failed to start: \${error instanceof Error ? error.message : String(error)}\\n\`);
  process.exit(1);
});
`;

const TEST = `import 'reflect-metadata';
import { McpApplication } from 'mcpkit';
import { McpTestClient } from 'mcpkit/testing';
import { AppModule } from '../src/app.module';

describe('AppModule', () => {
  let app: McpApplication;
  let client: McpTestClient;

  beforeEach(async () => {
    app = await McpApplication.create(AppModule);
    client = await McpTestClient.connect(app.connectInMemory());
  });

  afterEach(async () => {
    await client.close();
    await app.close();
  });

  it('adds two numbers', async () => {
    const result = await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    expect(result).toMatchObject({ structuredContent: { sum: 5 } });
  });

  it('names each invalid argument', async () => {
    const result = (await client.request('tools/call', { name: 'add', arguments: { a: 'two', b: 3 } })) as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('a');
  });

  it('serves the about resource and the greeting prompt', async () => {
    expect(await client.request('resources/read', { uri: 'info://about' })).toMatchObject({ contents: [{ uri: 'info://about' }] });
    expect(await client.request('prompts/get', { name: 'greeting', arguments: { name: 'Ada' } })).toMatchObject({ messages: [{ role: 'user' }] });
  });
});
`;

const README = `# __NAME__

An MCP server built with [mcpkit](https://www.npmjs.com/package/mcpkit).

\`\`\`bash
npm install && npm test    # install, then run the tests (an in-memory client calls the server)
npm start                  # build and serve on http://127.0.0.1:3000/mcp (PORT, HOST to change; --stdio for stdio)
\`\`\`

__INSTALL__

While you work, \`npx mcpkit dev\` rebuilds and restarts the server on every change (same port);
\`npx mcpkit inspect\` prints its tools, resources and prompts, \`npx mcpkit call add '{"a":1,"b":2}'\` calls a tool.

Tools, resources and prompts live in \`src/app.module.ts\`; \`src/main.ts\` serves them.
For a desktop client over stdio, run \`npm run build\` and point it at \`node dist/src/main.js --stdio\`;
\`npx mcpkit install claude-desktop\` writes that into its configuration, and \`npx mcpkit pack\` makes a bundle
(\`__NAME__-0.1.0.mcpb\`) that Claude Desktop installs, showing the \`description\` and \`author\` of \`package.json\`.

In a container: \`docker build -t __NAME__ .\` builds an image that serves on 0.0.0.0:3000 as an unprivileged user,
with a \`HEALTHCHECK\` on \`/health\`. Set \`ALLOWED_HOSTS\` to the host names clients use (comma-separated; with the
port when theirs differs from \`PORT\`): any other Host gets 403. A mcpkit tarball goes into the image only from this
folder (\`file:mcpkit-<version>.tgz\`, not \`file:../…\`).
`;
