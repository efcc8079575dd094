import { classifyInbound, type Inbound } from '../../../src/protocol/inbound';
import type { JsonRpcMessage } from '../../../src/mcp/json-rpc';

const PER_REQUEST = '2026-07-28';
const envelope = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': PER_REQUEST,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
const request = (method: string, params?: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  ...(params ? { params } : {}),
});
const headers = (h: Record<string, string>) => (name: string) => h[name] ?? '';
const perRequestHeaders = (method: string, name?: string) =>
  headers({ 'mcp-protocol-version': PER_REQUEST, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });

/** What a classification says, in one comparable word. */
function outcome(inbound: Inbound): string {
  if ('reject' in inbound) return `reject ${inbound.reject.code}`;
  if ('notification' in inbound) return `modern notification ${inbound.notification}`;
  return `${inbound.era}${inbound.pin ? ` pin ${inbound.pin}` : ''}`;
}

describe('classifyInbound over HTTP (each POST by its own headers and body)', () => {
  const call = (extraMeta: Record<string, unknown> = {}) =>
    request('tools/call', { name: 'echo', arguments: {}, _meta: envelope(extraMeta) });
  it.each<[string, JsonRpcMessage, (n: string) => string, 'legacy' | 'modern' | 'dual', string]>([
    ['a legacy request on a dual server', request('tools/list'), headers({ 'mcp-protocol-version': '2025-11-25' }), 'dual', 'legacy'],
    ['a legacy request without any version header', request('tools/list'), headers({}), 'dual', 'legacy'],
    [
      'a legacy request naming a version not served (legacy server)',
      request('tools/list'),
      headers({ 'mcp-protocol-version': '1999-01-01' }),
      'legacy',
      'reject -32000',
    ],
    [
      'a legacy request naming a version not served (dual server)',
      request('tools/list'),
      headers({ 'mcp-protocol-version': '1999-01-01' }),
      'dual',
      'reject -32022',
    ],
    ['a modern request with matching headers', call(), perRequestHeaders('tools/call', 'echo'), 'dual', 'modern'],
    ['a modern request by its envelope alone (no header)', call(), headers({}), 'dual', 'reject -32020'],
    ['a modern request whose Mcp-Method disagrees', call(), perRequestHeaders('tools/list', 'echo'), 'dual', 'reject -32020'],
    ['a modern request whose Mcp-Name disagrees', call(), perRequestHeaders('tools/call', 'other'), 'dual', 'reject -32020'],
    ['a modern request without Mcp-Name', call(), perRequestHeaders('tools/call'), 'dual', 'reject -32020'],
    // Names an Object.prototype member: no Mcp-Name asked for, left to the dispatcher (-32601)
    ['a modern "constructor" request', request('constructor', { _meta: envelope() }), perRequestHeaders('constructor'), 'dual', 'modern'],
    ['a modern "toString" request', request('toString', { _meta: envelope() }), perRequestHeaders('toString'), 'dual', 'modern'],
    [
      'a modern request with a broken _meta',
      request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': PER_REQUEST } }),
      perRequestHeaders('tools/list'),
      'dual',
      'reject -32602',
    ],
    [
      'a modern header over a body naming another version',
      request('tools/list', { _meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '2999-01-01' } }),
      perRequestHeaders('tools/list'),
      'dual',
      'reject -32020',
    ],
    [
      'initialize on a modern-only server',
      request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
      headers({}),
      'modern',
      'reject -32022',
    ],
    ['a response from a modern client', { jsonrpc: '2.0', id: 1, result: {} }, perRequestHeaders('x'), 'dual', 'reject -32600'],
    [
      'a modern notification',
      { jsonrpc: '2.0', method: 'notifications/acme', params: { _meta: envelope() } },
      headers({ 'mcp-protocol-version': PER_REQUEST }),
      'dual',
      `modern notification ${PER_REQUEST}`,
    ],
    ['anything on a legacy-only server, envelope or not', call(), perRequestHeaders('tools/call', 'echo'), 'legacy', 'reject -32000'],
  ])('%s', (_, message, header, support, expected) => {
    expect(outcome(classifyInbound(message, { support, header }))).toBe(expected);
  });

  it('gives a per-request-era request its envelope, read once', () => {
    const inbound = classifyInbound(call({ 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }), {
      support: 'dual',
      header: perRequestHeaders('tools/call', 'echo'),
    });
    expect(inbound).toEqual({
      era: 'modern',
      peer: {
        protocolVersion: PER_REQUEST,
        clientCapabilities: {},
        clientInfo: { name: 'c', version: '1' },
        logLevel: undefined,
        perRequest: true,
      },
    });
  });
});

describe('classifyInbound over a message transport (the connection remembers its era)', () => {
  const enveloped = request('tools/list', { _meta: envelope() });
  it.each<[string, JsonRpcMessage, 'legacy' | 'modern' | 'auto', string]>([
    ['initialize decides legacy', request('initialize', { protocolVersion: '2025-11-25' }), 'auto', 'legacy pin legacy'],
    ['server/discover decides modern', request('server/discover', { _meta: envelope() }), 'auto', 'modern pin modern'],
    ['an enveloped request decides modern', enveloped, 'auto', 'modern pin modern'],
    ['a plain request decides nothing', request('ping'), 'auto', 'legacy'],
    ['a pinned legacy connection stays legacy, envelope or not', enveloped, 'legacy', 'legacy'],
    ['a pinned modern connection reads every envelope', request('tools/list'), 'modern', 'reject -32602'],
    ['server/discover without an envelope is refused once it decided modern', request('server/discover'), 'auto', 'reject -32602'],
  ])('%s', (_, message, pinned, expected) => {
    expect(outcome(classifyInbound(message, { support: 'dual', pinned }))).toBe(expected);
  });

  it('classifies nothing on a handshake-only server, and allocates nothing for a handshake message', () => {
    const a = classifyInbound(enveloped, { support: 'legacy', pinned: 'legacy' });
    const b = classifyInbound(request('tools/list'), { support: 'dual', pinned: 'legacy' });
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
  });
});
