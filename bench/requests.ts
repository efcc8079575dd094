/** The requests the HTTP benches send (bench/run.ts, bench/request-instructions.ts): one definition, so that both measure the same call. */
export const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
export const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
export const MODERN_VERSION = '2026-07-28';
export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };
/** The modern (2026-07-28) tools/call: headers mirroring the body, and the per-request envelope in `_meta`. */
export const MODERN_HEADERS = { ...HEADERS, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
export const MODERN_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hello' }, _meta: MODERN_META },
});
/** The trace context the telemetry rows' requests carry: each call's span has a remote parent. */
export const TRACEPARENT = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
