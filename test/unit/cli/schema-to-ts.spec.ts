import * as ts from 'typescript';
import { TypeScriptDeclarations, typeName } from '../../../src/cli/schema-to-ts';

/** Diagnostics of a module made of `text` (strict), as messages. */
function diagnostics(text: string): string[] {
  const file = 'decls.ts';
  const host = ts.createCompilerHost({});
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (name === file ? ts.createSourceFile(file, text, version) : read(name, version));
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: [], lib: ['lib.es2022.d.ts'] }, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
}

describe('JSON Schema to TypeScript declarations', () => {
  it('covers unions, type lists, consts, maps, intersections, quoted keys and arrays of unions', () => {
    const decls = new TypeScriptDeclarations();
    decls.declare('Shapes', {
      type: 'object',
      description: 'Every shape */ at once',
      properties: {
        either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }] },
        maybe: { type: ['integer', 'null'] },
        kind: { const: 'fixed' },
        counts: { type: 'object', additionalProperties: { type: 'integer' } },
        open: { type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties: true },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
            { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
          ],
        },
        'content-type': { type: 'string' },
        mixed: { type: 'array', items: { enum: ['a', 1, null] } },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        anything: {},
      },
      required: ['either', 'kind', 'both'],
    });
    const text = decls.text();
    expect(text).toBe(`/** Every shape *\\/ at once */
export interface Shapes {
  either: string | {
    n: number;
  };
  maybe?: number | null;
  kind: "fixed";
  counts?: Record<string, number>;
  open?: {
    a?: boolean;
    [key: string]: unknown;
  };
  both: {
    a: string;
  } & {
    b: number;
  };
  "content-type"?: string;
  mixed?: ("a" | 1 | null)[];
  pair?: [string, number];
  anything?: unknown;
}
`);
    expect(diagnostics(text)).toEqual([]);
  });

  it('$defs become declarations shared by roots when equal, renamed when two roots define the same name differently', () => {
    const decls = new TypeScriptDeclarations();
    const node = { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } };
    decls.declare('A', { type: 'object', properties: { head: { $ref: '#/$defs/Node' } }, $defs: { Node: node } });
    decls.declare('B', { type: 'object', properties: { head: { $ref: '#/$defs/Node' } }, $defs: { Node: node } });
    decls.declare('C', { type: 'object', properties: { head: { $ref: '#/$defs/Node' } }, $defs: { Node: { type: 'string' } } });
    decls.declare('D', { type: 'array', items: { type: 'string' } });
    const text = decls.text();
    expect(text.match(/export interface Node\b/g)).toHaveLength(1);
    expect(text).toContain('export type Node2 = string;');
    expect(text).toContain('export interface C {\n  head?: Node2;\n}');
    expect(text).toContain('export type D = string[];');
    expect(diagnostics(text)).toEqual([]);
  });

  it('type names are PascalCase identifiers', () => {
    expect(typeName('burndown-chart')).toBe('BurndownChart');
    expect(typeName('ui://weather/now')).toBe('UiWeatherNow');
    expect(typeName('3d view')).toBe('_3dView');
    expect(typeName('--')).toBe('Unnamed');
  });
});
