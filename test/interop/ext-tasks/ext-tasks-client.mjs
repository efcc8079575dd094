// Drives mcpkit's 2026-07-28 tasks extension with the official client, @modelcontextprotocol/ext-tasks
// (ESM only, hence this child process). Usage: node ext-tasks-client.mjs <url>; prints one JSON line.
import { withTasks } from '@modelcontextprotocol/ext-tasks/client';

const url = process.argv[2];
const CAPS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
let nextId = 0;
const inputs = [];

/** A minimal connected port over raw 2026-07-28 HTTP: the envelope, the routing headers, JSON or SSE bodies. */
const port = {
  endpointId: 'mcpkit-ext-tasks-interop',
  taskCapabilities: { generation: 'v2', capabilities: {} },
  invalidated: false,
  async dispatch(request, options = {}) {
    const params = request.params ?? {};
    const body = {
      jsonrpc: '2.0',
      id: ++nextId,
      method: request.method,
      params: {
        ...params,
        _meta: {
          ...(params._meta ?? {}),
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'ext-tasks-interop', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': CAPS,
        },
      },
    };
    const name = request.method.startsWith('tasks/') ? params.taskId : request.method === 'tools/call' ? params.name : undefined;
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': request.method,
    };
    if (typeof name === 'string') headers['mcp-name'] = name;
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, ...Object.fromEntries(Object.entries(options.context?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])) },
      body: JSON.stringify(body),
      signal: options.signal,
    });
    const text = await res.text();
    const frames = (res.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)))
      : [JSON.parse(text)];
    const reply = frames.find((f) => f.id === body.id && ('result' in f || 'error' in f));
    return reply.error ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result };
  },
  onServerRequest: () => () => undefined,
  onNotification: () => () => undefined,
  onInvalidated: () => () => undefined,
};

const session = withTasks(port, {
  onInputRequest: async (request, context) => {
    inputs.push({ kind: request.kind, scope: context.scope, delivery: context.delivery });
    return { action: 'accept', content: { confirm: true, name: 'Ada' } };
  },
});

async function run(name, args) {
  const execution = await session.callTool(name, args);
  const { outcome } = await execution.settle();
  const out = { kind: execution.kind, status: outcome.status };
  if (outcome.status === 'completed') out.text = outcome.result.content?.[0]?.text;
  if (outcome.status === 'completed') out.isError = outcome.result.isError === true;
  if (outcome.status === 'failed') out.error = outcome.error.message;
  return out;
}

async function cancelled() {
  const execution = await session.callTool('slow_compute', { seconds: 30, label: 'cancel-me' });
  await execution.cancel();
  const { outcome } = await execution.settle();
  return { kind: execution.kind, status: outcome.status };
}

const report = {
  slow: await run('slow_compute', { seconds: 1, label: 'ext' }),
  failing: await run('failing_job', {}),
  protocolError: await run('protocol_error_job', {}),
  confirm: await run('confirm_delete', { filename: 'ext.txt' }),
  mrtrThenTask: await run('test_tool_with_task', {}),
  cancelled: await cancelled(),
  inputs,
};
await session.close?.();
process.stdout.write(`${JSON.stringify(report)}\n`);
