import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ROOT } from '../../helpers/paths';

/** The folders jest.config.ts gives a project: a spec anywhere else would never run. */
const PROJECT_ROOTS = ['test/unit', 'test/functional', 'test/interop', 'test/package'];

function specsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return specsUnder(path);
    return entry.name.endsWith('.spec.ts') ? [relative(ROOT, path).split(sep).join('/')] : [];
  });
}

describe('jest projects', () => {
  it('run every spec file under test/', () => {
    const orphans = specsUnder(join(ROOT, 'test')).filter((spec) => !PROJECT_ROOTS.some((root) => spec.startsWith(`${root}/`)));
    expect(orphans).toEqual([]);
  });
});
