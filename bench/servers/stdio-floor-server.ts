import './ipc';

/**
 * The floor of the stdio tools/call workload: a newline-delimited JSON loop in plain Node. Each line
 * read is parsed, checked to be a tools/call of echo and answered with JSON.stringify; the answers to
 * one chunk read go out in one write (as mcpkit's stdio transport writes the responses of one turn).
 */
let buffer = '';
process.stdin.on('data', (chunk: Buffer) => {
  buffer += chunk.toString('utf8');
  let out = '';
  let start = 0;
  for (let nl = buffer.indexOf('\n', start); nl >= 0; nl = buffer.indexOf('\n', start)) {
    const message = JSON.parse(buffer.slice(start, nl)) as {
      jsonrpc?: unknown;
      id?: string | number;
      method?: string;
      params?: { name?: unknown; arguments?: { text?: unknown }; protocolVersion?: string };
    };
    start = nl + 1;
    if (message.id === undefined || message.jsonrpc !== '2.0') continue;
    out += `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answer(message) })}\n`;
  }
  buffer = buffer.slice(start);
  if (out) process.stdout.write(out);
});

function answer(message: { method?: string; params?: { name?: unknown; arguments?: { text?: unknown } } }): unknown {
  if (message.method === 'tools/call' && message.params?.name === 'echo')
    return { content: [{ type: 'text', text: String(message.params.arguments?.text) }] };
  // The handshake the harness sends first (initialize, or server/discover): any result will do.
  return {};
}
