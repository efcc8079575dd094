import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SpanLine } from '../fixtures/traced-stdio-server';
import { ROOT } from '../helpers/paths';
import { waitFor } from '../helpers/wait-for';

const TRACED_STDIO = join(ROOT, 'dist', 'test', 'fixtures', 'traced-stdio-server.js');
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

/**
 * Acceptance of issue 14 over stdio: a real server process with an OpenTelemetry SDK tracer provider,
 * the official SDK 1.x client sending `_meta.traceparent`, and the span tree the process exported.
 */
describe('telemetry over stdio (real child process, official SDK client)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-spans-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a tools/call produces a server span under the client span, with the validate_arguments child and the MCP attributes', async () => {
    const file = join(dir, 'spans.jsonl');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TRACED_STDIO],
      env: { ...process.env, MCPKIT_SPANS_FILE: file },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The id the client gave each request, as it went on the wire.
    const sent = new Map<string, string | number>();
    const send = transport.send.bind(transport);
    transport.send = async (message: JSONRPCMessage) => {
      if ('method' in message && 'id' in message) sent.set(message.method, message.id);
      return send(message);
    };
    const client = new Client({ name: 'otel-interop', version: '1.0.0' });
    await client.connect(transport);
    const spans = (): SpanLine[] => {
      try {
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as SpanLine);
      } catch {
        return [];
      }
    };
    try {
      const result = await client.callTool({
        name: 'shout',
        arguments: { text: 'traced' },
        _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'TRACED' }]);
      const call = await waitFor(() => spans().find((s) => s.name === 'tools/call shout'), {
        what: `the tools/call span (stderr: ${stderr})`,
      });
      expect(call.kind).toBe(1); // SpanKind.SERVER
      expect(call.traceId).toBe(TRACE_ID);
      expect(call.parentSpanId).toBe(CLIENT_SPAN);
      expect(call.status).not.toBe(2); // not SpanStatusCode.ERROR
      expect(call.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'shout',
        'gen_ai.operation.name': 'execute_tool',
        'jsonrpc.request.id': String(sent.get('tools/call')),
        'mcp.protocol.version': LATEST_PROTOCOL_VERSION,
        'network.transport': 'pipe',
      });
      expect(call.attributes['error.type']).toBeUndefined();
      const validation = await waitFor(() => spans().find((s) => s.name === 'validate_arguments shout'));
      expect(validation.traceId).toBe(TRACE_ID);
      expect(validation.parentSpanId).toBe(call.spanId);
      expect(validation.kind).toBe(0); // SpanKind.INTERNAL
      // initialize carried no trace context: a root span of its own trace.
      const init = spans().find((s) => s.name === 'initialize')!;
      expect(init.attributes).toMatchObject({ 'mcp.method.name': 'initialize', 'jsonrpc.request.id': String(sent.get('initialize')) });
      expect(init.traceId).not.toBe(TRACE_ID);
      expect(init.parentSpanId).toBeUndefined();
    } finally {
      await client.close();
    }
  }, 30_000);
});
