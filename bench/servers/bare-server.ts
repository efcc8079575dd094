/**
 * The floor of the cold-start workload: a bare Node process that answers each request line with a
 * canned result (what any stdio server pays before doing any MCP work).
 */
let buffer = '';
process.stdin.on('data', (chunk: Buffer) => {
  buffer += chunk.toString('utf8');
  let nl: number;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    const message = JSON.parse(buffer.slice(0, nl)) as { id?: number };
    buffer = buffer.slice(nl + 1);
    if (message.id !== undefined)
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'hello' }] } })}\n`,
      );
  }
});
