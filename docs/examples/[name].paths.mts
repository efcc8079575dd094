import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The examples live in the repository's examples/ folder, outside the site: each becomes a page here, its
 * README followed by its files, and examples/README.md becomes /examples/. Their links between folders
 * (`database/`) are rewritten to these pages.
 */
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const LANGUAGES: Record<string, string> = { '.ts': 'ts', '.html': 'html', '.md': 'md', '.json': 'json' };

function filesOf(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? filesOf(path) : [path];
    });
}

/** A fenced block that no run of backticks inside `code` can close. */
function fenced(code: string, language: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${code.replace(/\n$/, '')}\n${fence}`;
}

/** `](database/)` in examples/README.md, or `](../filesystem/)` in an example's README: the site's page. */
function siteLinks(markdown: string, names: string[]): string {
  return markdown.replace(/\]\((?:\.\.\/|\.\/)?([\w-]+)\/?\)/g, (whole, name: string) => (names.includes(name) ? `](./${name})` : whole));
}

function page(name: string, names: string[]): string {
  const dir = join(EXAMPLES, name);
  const files = filesOf(dir).filter((file) => relative(dir, file) !== 'README.md');
  // The test last: what the example is, then how it is checked.
  files.sort((a, b) => Number(a.endsWith('.spec.ts')) - Number(b.endsWith('.spec.ts')));
  const sources = files.map(
    (file) => `### ${relative(dir, file)}\n\n${fenced(readFileSync(file, 'utf8'), LANGUAGES[extname(file)] ?? '')}`,
  );
  const readme = siteLinks(readFileSync(join(dir, 'README.md'), 'utf8'), names);
  return `${readme}\n## Files\n\nThe folder \`examples/${name}/\` of the repository, file by file.\n\n${sources.join('\n\n')}\n`;
}

export default {
  watch: ['../../examples/**/*'],
  paths() {
    const names = readdirSync(EXAMPLES).filter((entry) => statSync(join(EXAMPLES, entry)).isDirectory());
    return [
      { params: { name: 'index' }, content: siteLinks(readFileSync(join(EXAMPLES, 'README.md'), 'utf8'), names) },
      ...names.map((name) => ({ params: { name }, content: page(name, names) })),
    ];
  },
};
