import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../../helpers/paths';
import { sourceFiles } from './import-graph';

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages the files of src/ load at runtime: import, export-from, import() and require(), type-only imports aside. */
function runtimePackages(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles(ROOT, 'src')) {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    const add = (specifier: string) => {
      if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) return;
      if (!found.has(packageOf(specifier))) found.set(packageOf(specifier), file);
    };
    const visit = (node: ts.Node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
        const typeOnly =
          !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
        if (!typeOnly) add(node.moduleSpecifier.text);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        if (!node.isTypeOnly) add(node.moduleSpecifier.text);
      } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
        const callee = node.expression;
        if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require'))
          add(node.arguments[0].text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

describe('the runtime dependencies in package.json', () => {
  const used = runtimePackages();

  it('are each loaded by src/ at runtime: nothing listed goes unused', () => {
    const unused = Object.keys(manifest.dependencies ?? {}).filter((name) => !used.has(name));
    expect(unused).toEqual([]);
  });

  it('list every package src/ loads at runtime (as a dependency or a peer dependency)', () => {
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const undeclared = [...used].filter(([name]) => !declared.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(undeclared).toEqual([]);
  });
});
