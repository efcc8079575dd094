import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { run } from './cli';
import { ROOT } from './paths';

/** One ```ts block of the documentation: where it is and what it says. */
export interface CodeBlock {
  /** `docs/guide/tools.md:42` (the line of the opening fence). */
  where: string;
  code: string;
  /** Opened with ```ts fragment: shown, not compiled (a piece of a class, an elided body). */
  fragment: boolean;
}

/** The markdown the docs test reads: README.md and docs/ (not the generated API reference, nor VitePress's folders). */
export function documentationFiles(): string[] {
  const files = [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !entry.name.startsWith('.') && path !== join(ROOT, 'docs', 'api')) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return files;
}

/** Every ```ts / ```typescript block of a markdown file. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)\b(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !lines[i].startsWith('```')) body.push(lines[i]);
    blocks.push({ where: `${relative(ROOT, file)}:${start + 1}`, code: body.join('\n'), fragment: /\bfragment\b/.test(open[2]) });
  }
  return blocks;
}

/**
 * What every block may use without declaring it: `app`, the application being set up, and
 * `AppModule`, its root module (also importable from './app.module'), as the guides' snippets say.
 * Anything else a block uses it imports or declares itself; test runners' globals are jest's.
 */
const AMBIENT = `import type { McpApplication } from 'mcpkit';
declare global {
  const app: McpApplication;
  class AppModule {}
}
export {};
`;

/**
 * Type-checks every block that is not a fragment with tsc, each as its own ES module (top-level
 * await allowed), against mcpkit's own declarations (`mcpkit` and its subpaths map to src/), with
 * the compiler options a user of the package has (strict, decorators with metadata). Returns tsc's
 * diagnostics with each block's file name replaced by its place in the markdown, or '' when all compile.
 */
export async function compileBlocks(blocks: CodeBlock[]): Promise<string> {
  // Inside the repository, so that imports of class-validator, tsyringe… resolve from its node_modules.
  const dir = join(ROOT, 'dist', 'docs-blocks');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const names = new Map<string, string>();
  blocks.forEach((block, index) => {
    const name = `block-${String(index).padStart(3, '0')}.ts`;
    names.set(name, block.where);
    // A block without import or export would be a script sharing one scope with the others.
    const code = /^\s*(import|export)\s/m.test(block.code) ? block.code : `${block.code}\nexport {};`;
    writeFileSync(join(dir, name), `${code}\n`);
  });
  writeFileSync(join(dir, 'ambient.d.ts'), AMBIENT);
  writeFileSync(join(dir, 'app.module.ts'), 'export class AppModule {}\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'bundler',
        lib: ['ES2022', 'DOM'],
        types: ['node', 'jest'],
        strict: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        esModuleInterop: true,
        skipLibCheck: true,
        noEmit: true,
        baseUrl: ROOT,
        paths: { mcpkit: ['src/index.ts'], 'mcpkit/*': ['src/*/index.ts', 'src/*.ts'] },
      },
      include: ['*.ts'],
    }),
  );
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { timeoutMs: 240_000 });
  if (result.code === 0) return '';
  return (result.stdout + result.stderr).replace(/(?:\S*\/)?block-\d{3}\.ts\((\d+),(\d+)\)/g, (whole, line: string) => {
    const name = /block-\d{3}\.ts/.exec(whole)![0];
    const [file, fence] = names.get(name)!.split(':');
    return `${file}:${Number(fence) + Number(line)}`;
  });
}
