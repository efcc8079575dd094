import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

class Clock {
  @Tool({ description: 'Server time', input: null })
  time(ctx: McpContext) {
    return '12:00 ' + String(ctx.requestId);
  }
}

@McpModule({ providers: [Clock] })
class AppModule {}

void McpApplication.create(AppModule).then((app) => app.listen({ stdio: true }));
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
});
