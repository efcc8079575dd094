import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledPath, isTypeScript, readTsProject } from '../../../src/cli/project';

describe('CLI project layout', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-project-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('maps a source to its output through rootDir/outDir (.ts -> .js, .mts -> .mjs)', () => {
    const project = { dir, tsconfig: join(dir, 'tsconfig.json'), rootDir: join(dir, 'src'), outDir: join(dir, 'dist'), files: [] };
    expect(compiledPath(join(dir, 'src', 'app.module.ts'), project)).toBe(join(dir, 'dist', 'app.module.js'));
    expect(compiledPath(join(dir, 'src', 'a', 'b.mts'), project)).toBe(join(dir, 'dist', 'a', 'b.mjs'));
  });

  it('without rootDir, picks the root (tsconfig dir or src/) whose output exists; without outDir, the file beside', () => {
    const project = { dir, tsconfig: join(dir, 'tsconfig.json'), outDir: join(dir, 'out'), files: [] };
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'out', 'main.js'), '');
    expect(compiledPath(join(dir, 'src', 'main.ts'), project)).toBe(join(dir, 'out', 'main.js'));
    expect(compiledPath(join(dir, 'src', 'other.ts'), project)).toBe(join(dir, 'out', 'src', 'other.js'));
    expect(compiledPath(join(dir, 'src', 'x.ts'), { dir, tsconfig: project.tsconfig, files: [] })).toBe(join(dir, 'src', 'x.js'));
  });

  it('reads rootDir, outDir and the files of a tsconfig with comments and extends, through tsc', () => {
    writeFileSync(join(dir, 'base.json'), '{ "compilerOptions": { "outDir": "build" } }');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      '{ // comment\n "extends": "./base.json", "compilerOptions": { "rootDir": "src" }, "include": ["src"] }',
    );
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), 'export {};\n');
    expect(readTsProject(join(dir, 'tsconfig.json'))).toMatchObject({
      dir,
      rootDir: join(dir, 'src'),
      outDir: join(dir, 'build'),
      files: [join(dir, 'src', 'main.ts')],
    });
  });

  it('tells TypeScript sources from declarations and JavaScript', () => {
    expect([isTypeScript('a.ts'), isTypeScript('a.d.ts'), isTypeScript('a.js'), isTypeScript('a.cts')]).toEqual([true, false, false, true]);
  });
});
