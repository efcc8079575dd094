import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSummary, runConformance } from '../test/helpers/conformance';
import { CONFORMANCE_MAIN, CONFORMANCE_NEXT_CLI } from '../test/helpers/paths';
import { spawnHttpServer } from '../test/helpers/spawn-server';

/**
 * `npm run conformance:2026`: the 0.2 alpha conformance suite at the 2026-07-28 requirements against
 * samples/conformance. A report, not a test (test/interop/conformance.spec.ts asserts the scored scenarios
 * in `npm test`): it prints the totals and each failing scenario's failed checks, unscored ones (the tasks
 * extension) included, and exits 0 whatever they are (1 only if the suite did not run).
 */
const REVISION = '2026-07-28';

/** The ids of a scenario's FAILURE checks, from the checks.json the CLI writes under --output-dir. */
function failedChecks(outDir: string, scenario: string): string[] {
  const dir = readdirSync(outDir).find((d) => d.startsWith(`server-${scenario}-`) && /^\d{4}-/.test(d.slice(`server-${scenario}-`.length)));
  const file = dir && join(outDir, dir, 'checks.json');
  if (!file || !existsSync(file)) return ['(no checks recorded)'];
  const checks = JSON.parse(readFileSync(file, 'utf8')) as { id?: string; name?: string; status: string }[];
  return [...new Set(checks.filter((c) => c.status === 'FAILURE').map((c) => c.id ?? c.name ?? '?'))];
}

async function main(): Promise<number> {
  const server = await spawnHttpServer(CONFORMANCE_MAIN);
  const outDir = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-'));
  try {
    // The DNS-rebinding scenario insists on a localhost URL.
    const url = `http://localhost:${server.port}/mcp`;
    const { output } = await runConformance(process.execPath, CONFORMANCE_NEXT_CLI, [
      'server',
      '--url',
      url,
      '--requirements',
      REVISION,
      '-o',
      outDir,
    ]);
    const { scenarios, total } = parseSummary(output);
    if (!total || scenarios.length === 0) {
      process.stderr.write(`${output}\nconformance:2026: the suite produced no summary\n`);
      return 1;
    }
    const sum = (list: typeof scenarios, key: 'passed' | 'failed') => list.reduce((n, s) => n + s[key], 0);
    const scored = scenarios.filter((s) => s.scored);
    const unscored = scenarios.filter((s) => !s.scored);
    const line = (label: string, list: typeof scenarios) =>
      `${label}: ${list.filter((s) => s.ok).length}/${list.length} scenarios pass; checks ${sum(list, 'passed')} passed, ${sum(list, 'failed')} failed\n`;
    process.stdout.write(`MCP conformance ${REVISION} (@modelcontextprotocol/conformance 0.2 alpha) against samples/conformance\n`);
    process.stdout.write(line('scored', scored));
    process.stdout.write(line('not scored (extension, pending)', unscored));
    process.stdout.write(`all: checks ${total.passed} passed, ${total.failed} failed\n`);
    for (const [label, list] of [
      ['failing scored scenarios', scored],
      ['failing unscored scenarios', unscored],
    ] as const) {
      const failing = list.filter((s) => !s.ok);
      process.stdout.write(`\n${label} (${failing.length}):\n`);
      for (const s of failing)
        process.stdout.write(`  ✗ ${s.name} (${s.passed} passed, ${s.failed} failed): ${failedChecks(outDir, s.name).join(', ')}\n`);
    }
    return 0;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`conformance:2026 failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
