import { failureCount, runFuzz } from '../../bench/fuzz';
import { SAMPLE_MAIN } from '../helpers/paths';

/**
 * A short run of bench/fuzz.ts against the built notes sample (stdio and HTTP child processes):
 * mutated JSON-RPC never crashes the server, every request with an id is answered with JSON-RPC,
 * and nothing the client did is answered as a server fault (-32603).
 */
describe('fuzz (1,000 inputs per transport, both at once)', () => {
  it('finds no crash, no unanswered request, no non-JSON-RPC answer and no -32603', async () => {
    // A count, not a time: a loaded machine sends as many inputs, only more slowly.
    const report = await runFuzz({ messages: 1000, script: SAMPLE_MAIN });
    const failures = report.failures.map(
      (f) => `${f.transport} ${f.kind} [${f.mutation}] ${f.method ?? ''}: ${f.detail} | ${f.input.slice(0, 200)}`,
    );
    expect({ seed: report.seed, failures }).toEqual({ seed: report.seed, failures: [] });
    expect(failureCount(report)).toBe(0);
    for (const counts of Object.values(report.transports)) {
      expect(counts).toMatchObject({ crashes: 0, unanswered: 0, nonJsonRpc: 0, internalErrors: 0 });
      expect(counts.sent).toBeGreaterThanOrEqual(1000);
      expect(counts.answered).toBe(counts.owed);
    }
  }, 300_000);
});
