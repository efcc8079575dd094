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
  if ('notification' in inbound) return `per-request notification ${inbound.notification}`;
  return `${inbound.era}${inbound.pin ? ` pin ${inbound.pin}` : ''}`;
}

describe('classifyInbound over HTTP (each POST by its own headers and body)', () => {
  const call = (extraMeta: Record<string, unknown> = {}) =>
    request('tools/call', { name: 'echo', arguments: {}, _meta: envelope(extraMeta) });
  it.each<[string, JsonRpcMessage, (n: string) => string, 'handshake' | 'per-request' | 'dual', string]>([
    ['a handshake request on a dual server', request('tools/list'), headers({ 'mcp-protocol-version': '2025-11-25' }), 'dual', 'handshake'],
    ['a handshake request without any version header', request('tools/list'), headers({}), 'dual', 'handshake'],
    [
      'a handshake request naming a version not served (handshake server)',
      request('tools/list'),
      headers({ 'mcp-protocol-version': '1999-01-01' }),
      'handshake',
      'reject -32000',
    ],
    [
      'a handshake request naming a version not served (dual server)',
      request('tools/list'),
      headers({ 'mcp-protocol-version': '1999-01-01' }),
      'dual',
      'reject -32022',
    ],
    ['a per-request-era request with matching headers', call(), perRequestHeaders('tools/call', 'echo'), 'dual', 'per-request'],
    ['a per-request-era request by its envelope alone (no header)', call(), headers({}), 'dual', 'reject -32020'],
    ['a per-request-era request whose Mcp-Method disagrees', call(), perRequestHeaders('tools/list', 'echo'), 'dual', 'reject -32020'],
    ['a per-request-era request whose Mcp-Name disagrees', call(), perRequestHeaders('tools/call', 'other'), 'dual', 'reject -32020'],
    ['a per-request-era request without Mcp-Name', call(), perRequestHeaders('tools/call'), 'dual', 'reject -32020'],
    // Names an Object.prototype member: no Mcp-Name asked for, left to the dispatcher (-32601)
    [
      'a per-request-era "constructor" request',
      request('constructor', { _meta: envelope() }),
      perRequestHeaders('constructor'),
      'dual',
      'per-request',
    ],
    [
      'a per-request-era "toString" request',
      request('toString', { _meta: envelope() }),
      perRequestHeaders('toString'),
      'dual',
      'per-request',
    ],
    [
      'a per-request-era request with a broken _meta',
      request('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': PER_REQUEST } }),
      perRequestHeaders('tools/list'),
      'dual',
      'reject -32602',
    ],
    [
      'a per-request header over a body naming another version',
      request('tools/list', { _meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '2999-01-01' } }),
      perRequestHeaders('tools/list'),
      'dual',
      'reject -32020',
    ],
    [
      'initialize on a per-request-only server',
      request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }),
      headers({}),
      'per-request',
      'reject -32022',
    ],
    ['a response from a per-request client', { jsonrpc: '2.0', id: 1, result: {} }, perRequestHeaders('x'), 'dual', 'reject -32600'],
    [
      'a per-request notification',
      { jsonrpc: '2.0', method: 'notifications/acme', params: { _meta: envelope() } },
      headers({ 'mcp-protocol-version': PER_REQUEST }),
      'dual',
      `per-request notification ${PER_REQUEST}`,
    ],
    ['anything on a handshake-only server, envelope or not', call(), perRequestHeaders('tools/call', 'echo'), 'handshake', 'reject -32000'],
  ])('%s', (_, message, header, support, expected) => {
    expect(outcome(classifyInbound(message, { support, header }))).toBe(expected);
  });

  it('gives a per-request-era request its envelope, read once', () => {
    const inbound = classifyInbound(call({ 'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' } }), {
      support: 'dual',
      header: perRequestHeaders('tools/call', 'echo'),
    });
    expect(inbound).toEqual({
      era: 'per-request',
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
  it.each<[string, JsonRpcMessage, 'handshake' | 'per-request' | 'auto', string]>([
    ['initialize decides handshake', request('initialize', { protocolVersion: '2025-11-25' }), 'auto', 'handshake pin handshake'],
    ['server/discover decides per-request', request('server/discover', { _meta: envelope() }), 'auto', 'per-request pin per-request'],
    ['an enveloped request decides per-request', enveloped, 'auto', 'per-request pin per-request'],
    ['a plain request decides nothing', request('ping'), 'auto', 'handshake'],
    ['a pinned handshake connection stays handshake, envelope or not', enveloped, 'handshake', 'handshake'],
    ['a pinned per-request connection reads every envelope', request('tools/list'), 'per-request', 'reject -32602'],
    ['server/discover without an envelope is refused once it decided per-request', request('server/discover'), 'auto', 'reject -32602'],
  ])('%s', (_, message, pinned, expected) => {
    expect(outcome(classifyInbound(message, { support: 'dual', pinned }))).toBe(expected);
  });

  it('classifies nothing on a handshake-only server, and allocates nothing for a handshake message', () => {
    const a = classifyInbound(enveloped, { support: 'handshake', pinned: 'handshake' });
    const b = classifyInbound(request('tools/list'), { support: 'dual', pinned: 'handshake' });
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
  });
});
