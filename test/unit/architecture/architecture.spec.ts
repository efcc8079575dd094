import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cycles, importEdges, sourceFiles } from './import-graph';

const ROOT = join(__dirname, '..', '..', '..');
const files = sourceFiles(ROOT, 'src');
const edges = importEdges(ROOT, files);
const layer = (file: string) => file.split('/')[1];

/** The shape of src/: no import cycles, layers that only import downwards, files of a readable size. */
describe('architecture of src/', () => {
  it('reads the import graph (a sanity check of the reader itself)', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(edges).toContainEqual({ from: 'src/protocol/protocol-engine.ts', to: 'src/protocol/server-session.ts', typeOnly: false });
    expect(edges).toContainEqual({ from: 'src/protocol/server-session.ts', to: 'src/protocol/connection.ts', typeOnly: true });
    // The cycle finder finds a planted cycle.
    expect(
      cycles(
        ['a', 'b', 'c'],
        [
          { from: 'a', to: 'b', typeOnly: false },
          { from: 'b', to: 'a', typeOnly: true },
          { from: 'b', to: 'c', typeOnly: false },
        ],
      ),
    ).toEqual([['a', 'b']]);
  });

  it('has no import cycles, counting type-only imports', () => {
    expect(cycles(files, edges)).toEqual([]);
  });

  it('keeps the MCP vocabulary (src/mcp) at the bottom: it imports nothing else of mcpkit', () => {
    expect(edges.filter((e) => layer(e.from) === 'mcp' && layer(e.to) !== 'mcp')).toEqual([]);
  });

  it('lets registry/, schema/, metadata/ and decorators/ run without the engine or transports (type-only imports of option shapes aside)', () => {
    const low = new Set(['registry', 'schema', 'metadata', 'decorators', 'errors', 'validation']);
    const high = new Set(['protocol', 'kernel', 'transports', 'tasks', 'redis', 'context', 'testing', 'client']);
    // context/mcp-context.ts is the handler contract (an abstract class the registry recognises by
    // type, and interfaces): it belongs with the vocabulary, and imports nothing but it.
    const CONTRACT = 'src/context/mcp-context.ts';
    expect(edges.filter((e) => e.from === CONTRACT && layer(e.to) !== 'mcp')).toEqual([]);
    expect(edges.filter((e) => low.has(layer(e.from)) && high.has(layer(e.to)) && e.to !== CONTRACT && !e.typeOnly)).toEqual([]);
  });

  it('keeps the shared contracts (guards, middleware, cache hints) low: they import only the vocabulary and the handler contract', () => {
    const allowed = (to: string) => layer(to) === 'contracts' || layer(to) === 'mcp' || to === 'src/context/mcp-context.ts';
    expect(files.filter((f) => layer(f) === 'contracts').length).toBeGreaterThanOrEqual(3);
    expect(edges.filter((e) => layer(e.from) === 'contracts' && !allowed(e.to))).toEqual([]);
  });

  it('keeps the request context (McpContext of one request) with the protocol that builds it', () => {
    expect(files).toContain('src/protocol/request-context.ts');
    expect(files.filter((f) => layer(f) === 'context')).toEqual(['src/context/mcp-context.ts']);
  });

  it('keeps the protocol core free of tasks/, transports/, redis/ and kernel/ (tasks plug in as a feature)', () => {
    expect(edges.filter((e) => layer(e.from) === 'protocol' && ['tasks', 'transports', 'redis', 'kernel'].includes(layer(e.to)))).toEqual(
      [],
    );
  });

  it('keeps the MCP client (src/client) standalone: only the vocabulary, the wire helpers, the line decoder and the x-mcp-header rules below it', () => {
    const allowed = (to: string) =>
      layer(to) === 'client' ||
      layer(to) === 'mcp' ||
      ['src/protocol/wire.ts', 'src/transports/line-decoder.ts', 'src/schema/mcp-header.ts'].includes(to);
    expect(edges.filter((e) => layer(e.from) === 'client' && !allowed(e.to))).toEqual([]);
    // and nothing but the public index depends on it (the proxy will, through its own layer)
    expect(
      edges.filter(
        (e) =>
          layer(e.to) === 'client' &&
          layer(e.from) !== 'client' &&
          e.from !== 'src/index.ts' &&
          ['mcp', 'protocol', 'transports', 'tasks'].includes(layer(e.from)),
      ),
    ).toEqual([]);
  });

  it('lets nothing outside protocol/ import the session class (handlers get a RequestScope, transports a Connection)', () => {
    expect(edges.filter((e) => e.to === 'src/protocol/server-session.ts' && layer(e.from) !== 'protocol')).toEqual([]);
  });

  // A package's internal paths are private: another version (or its ESM build) lays them out otherwise.
  it('imports class-transformer and class-validator only through their public entry points', () => {
    const deep = /(?:from\s*|require\(\s*|import\(\s*)['"]class-(?:transformer|validator)\//;
    expect(files.filter((f) => deep.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  // STYLE.md: split a file past 400 lines. Measured on Prettier's layout, so no line is packed to fit.
  it('has no source file over 400 lines', () => {
    const long = files
      .map((f) => ({ file: f, lines: readFileSync(join(ROOT, f), 'utf8').replace(/\n$/, '').split('\n').length }))
      .filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });
});
