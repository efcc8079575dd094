import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { textOf } from '../helpers/per-request-client-suite';
import { ROOT } from '../helpers/paths';
import { sdk2, sdk2Stdio } from '../helpers/sdk2';
import { spawnHttpServer } from '../helpers/spawn-server';

const ERAS_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'eras-server.js');
/** Each client calls the tool this many times: a report lost to timing is lost on some calls only. */
const CALLS = 10;
const SENT = [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` }));

type Progress = { progress: number; total?: number; message?: string };
type WireMessage = { id?: unknown; method?: string; params?: Record<string, unknown>; result?: { content?: unknown } };
type Transport = 'stdio' | 'http';
/** What one call of `steps` (progress 1, 2, 3, each awaited, then the answer) gave the client. */
interface StepsCall {
  text: string;
  /** What the client's onprogress saw. */
  progress: Progress[];
  /** Every message the client's transport delivered during the call, in order: what the server sent. */
  wire: WireMessage[];
}
interface Connected {
  steps: () => Promise<StepsCall>;
  close: () => Promise<void>;
}

/** Records what a connected client's transport delivers, in order. */
function tap<M extends object, E>(transport: { onmessage?: (message: M, extra?: E) => void }): WireMessage[] {
  const wire: WireMessage[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    wire.push(message);
    deliver(message, extra);
  };
  return wire;
}

/** The official 1.x client (2025-11-25 session). */
async function sdk1(transport: Transport, url: string): Promise<Connected> {
  const client = new Client({ name: 'progress-interop', version: '1.0.0' });
  const channel =
    transport === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [ERAS_SERVER, '--stdio'], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(channel);
  const wire = tap(channel);
  return {
    steps: async () => {
      const progress: Progress[] = [];
      const from = wire.length;
      const result = await client.callTool({ name: 'steps', arguments: { steps: 3 } }, undefined, {
        onprogress: (p) => void progress.push(p),
      });
      return { text: textOf(result as { content?: unknown }), progress, wire: wire.slice(from) };
    },
    close: () => client.close(),
  };
}

/** The official 2.x client, in its default mode (a 2025-11-25 session) or pinned to a protocol version. */
function sdk2Client(pin?: string) {
  return async (transport: Transport, url: string): Promise<Connected> => {
    const client = new sdk2.Client({ name: 'progress-interop', version: '2.4.0' }, pin ? { versionNegotiation: { mode: { pin } } } : {});
    const channel =
      transport === 'stdio'
        ? new sdk2Stdio.StdioClientTransport({ command: process.execPath, args: [ERAS_SERVER, '--stdio'], stderr: 'pipe' })
        : new sdk2.StreamableHTTPClientTransport(new URL(url));
    await client.connect(channel);
    const wire = tap(channel);
    return {
      steps: async () => {
        const progress: Progress[] = [];
        const from = wire.length;
        const result = await client.callTool({ name: 'steps', arguments: { steps: 3 } }, { onprogress: (p) => void progress.push(p) });
        return { text: textOf(result), progress, wire: wire.slice(from) };
      },
      close: () => client.close(),
    };
  };
}

const CLIENTS = [
  ['SDK 1.x client', sdk1],
  ['SDK 2.x client, default mode', sdk2Client()],
  ['SDK 2.x client, pinned to 2026-07-28', sdk2Client('2026-07-28')],
] as const;

/** The progress notifications of a call's wire, and whether each came before the answer. */
function reportsOnTheWire(call: StepsCall): { params: Record<string, unknown> | undefined; beforeAnswer: boolean }[] {
  const answer = call.wire.findIndex((m) => m.result !== undefined);
  return call.wire.flatMap((m, i) =>
    m.method === 'notifications/progress' ? [{ params: m.params, beforeAnswer: answer === -1 || i < answer }] : [],
  );
}

/**
 * Issue 47: a tool that awaits each progress report, then answers. The server sends every report, in
 * order, before the answer, to every official client on every transport.
 */
describe.each(['stdio', 'http'] as const)('progress 1, 2, 3, then the answer, over %s', (transport) => {
  let server: Awaited<ReturnType<typeof spawnHttpServer>> | undefined;
  beforeAll(async () => {
    if (transport === 'http') server = await spawnHttpServer(ERAS_SERVER);
  });
  afterAll(() => server?.stop());

  it.each(CLIENTS)('to the %s: every report, in order, then the answer', async (_label, connect) => {
    const connected = await connect(transport, server?.url ?? '');
    try {
      const calls: StepsCall[] = [];
      for (let i = 0; i < CALLS; i++) calls.push(await connected.steps());
      for (const call of calls) {
        expect(call.text).toBe('3 steps');
        expect(reportsOnTheWire(call)).toEqual(SENT.map((p) => ({ params: expect.objectContaining(p), beforeAnswer: true })));
      }
      const seen = calls.map((c) => c.progress);
      if (transport === 'http') {
        // Each SSE event is handled in a turn of its own: the client sees every report.
        expect(seen).toEqual(calls.map(() => SENT));
      } else {
        // The official clients (1.x and 2.x) run a notification's handler a microtask after reading it but
        // settle a response read in the same chunk at once, retiring its progress handler: reports that
        // reach them in one read with the answer are dropped (typescript-sdk#2580), whatever the server's
        // writes. What the client sees is an in-order prefix of what the wire carried.
        for (const progress of seen) expect(progress).toEqual(SENT.slice(0, progress.length));
      }
    } finally {
      await connected.close();
    }
  });
});
