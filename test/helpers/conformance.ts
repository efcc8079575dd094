import { spawn } from 'node:child_process';
import { ROOT } from './paths';

/**
 * Runs a conformance CLI to its exit and returns its exit code with stdout and stderr interleaved. After
 * `killAfterMs` the CLI is killed (code null), so a hung scenario cannot outlive the test that ran it.
 * `onOutput` sees the output so far as it grows (a scenario that waits for a browser prints a URL to visit).
 */
export function runConformance(
  node: string,
  cli: string,
  args: string[],
  killAfterMs = 120_000,
  onOutput?: (output: string) => void,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    const read = (c: Buffer) => {
      output += c.toString();
      onOutput?.(output);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface ScenarioResult {
  name: string;
  passed: number;
  failed: number;
  ok: boolean;
  /** False for what the requirement set runs but never scores (extension, pending, added after release). */
  scored: boolean;
}

/**
 * Reads the CLI's `=== SUMMARY ===`: one `✓|✗ name: P passed, F failed` line a scenario, the check
 * totals, and (0.2 alphas with --requirements) the `Not scored for …` list that follows them.
 */
export function parseSummary(output: string): { scenarios: ScenarioResult[]; total: { passed: number; failed: number } | null } {
  const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='));
  const totalAt = summary.search(/^Total: /m);
  const head = totalAt < 0 ? summary : summary.slice(0, totalAt);
  const tail = totalAt < 0 ? '' : summary.slice(totalAt);
  const notScored = new Set([...tail.matchAll(/^\s+[✓✗] (\S+) \(/gm)].map((m) => m[1]));
  const scenarios = [...head.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gm)].map((m) => ({
    name: m[2],
    passed: Number(m[3]),
    failed: Number(m[4]),
    ok: m[1] === '✓',
    scored: !notScored.has(m[2]),
  }));
  const total = /^Total: (\d+) passed, (\d+) failed/m.exec(tail);
  return { scenarios, total: total ? { passed: Number(total[1]), failed: Number(total[2]) } : null };
}
