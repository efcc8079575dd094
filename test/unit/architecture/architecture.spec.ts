import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cycles, importEdges, sourceFiles, type ImportEdge } from './import-graph';
import { LAYERS, layerOf, type Layer } from './layers';

const ROOT = join(__dirname, '..', '..', '..');
const files = sourceFiles(ROOT, 'src');
const edges = importEdges(ROOT, files);

/** The imports that go up the layer list, named `from -> to (from layer -> to layer)`. */
function upward(edges: readonly ImportEdge[], layers: readonly Layer[]): string[] {
  return edges
    .filter((e) => (layerOf(e.from, layers) ?? -1) < (layerOf(e.to, layers) ?? -1))
    .map((e) => `${e.from} -> ${e.to} (${layers[layerOf(e.from, layers)!].name} -> ${layers[layerOf(e.to, layers)!].name})`);
}

/** The shape of src/: layers that only import downwards, no import cycles, files of a readable size. */
describe('architecture of src/', () => {
  it('reads imports, finds an upward import and a cycle (the checks themselves, on planted files)', () => {
    const planted = join(ROOT, 'test', 'fixtures', 'import-graph');
    const plantedFiles = sourceFiles(planted, 'src');
    const plantedEdges = importEdges(planted, plantedFiles);
    // import, import(), import type and export-from, each read as an edge
    expect(plantedEdges).toEqual([
      { from: 'src/high/up.ts', to: 'src/low/down.ts', typeOnly: false },
      { from: 'src/low/down.ts', to: 'src/high/up.ts', typeOnly: false },
      { from: 'src/low/types.ts', to: 'src/high/up.ts', typeOnly: true },
      { from: 'src/low/types.ts', to: 'src/low/down.ts', typeOnly: false },
    ]);
    const layers: Layer[] = [
      { name: 'low', holds: '', paths: ['src/low/'] },
      { name: 'high', holds: '', paths: ['src/high/'] },
    ];
    expect(upward(plantedEdges, layers)).toEqual([
      'src/low/down.ts -> src/high/up.ts (low -> high)',
      'src/low/types.ts -> src/high/up.ts (low -> high)',
    ]);
    expect(cycles(plantedFiles, plantedEdges)).toEqual([['src/high/up.ts', 'src/low/down.ts']]);
  });

  it('puts every file of src/ in a layer', () => {
    expect(files.filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  it('imports only from the same layer or a layer below, type-only imports too', () => {
    expect(upward(edges, LAYERS)).toEqual([]);
  });

  // STYLE habit 6: the public entry points depend on the core, never the reverse.
  it('lets nothing but the entry points import an entry point', () => {
    const entries = LAYERS[LAYERS.length - 1].paths;
    expect(edges.filter((e) => entries.includes(e.to) && !entries.includes(e.from))).toEqual([]);
  });

  it('has no import cycles, counting type-only imports', () => {
    expect(cycles(files, edges)).toEqual([]);
  });

  // A package's internal paths are private: another version (or its ESM build) lays them out otherwise.
  it('imports class-transformer and class-validator only through their public entry points', () => {
    const deep = /(?:from\s*|require\(\s*|import\(\s*)['"]class-(?:transformer|validator)\//;
    expect(files.filter((f) => deep.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it("is described to readers in CONTRIBUTING.md's layer list, in the same order", () => {
    const contributing = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
    const section = contributing.slice(
      contributing.indexOf('## The layers'),
      contributing.indexOf('\n## ', contributing.indexOf('## The layers') + 1),
    );
    const listed = [...section.matchAll(/^\d+\. `([\w-]+)\/`/gm)].map((m) => `src/${m[1]}/`);
    expect(listed).toEqual(LAYERS.filter((l) => l.paths[0].endsWith('/')).map((l) => l.paths[0]));
  });
});
