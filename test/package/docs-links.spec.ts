import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { documentationFiles } from '../helpers/docs-blocks';
import { ROOT } from '../helpers/paths';

/**
 * The guides read on GitHub as well as on the site: every link of the README, CONTRIBUTING.md, the guides and
 * the examples' READMEs resolves the way GitHub resolves it, from the file's own folder, and every `#anchor`
 * names a heading of its target by GitHub's slug. The site's build checks links its own way (`npm run docs`
 * fails on a dead one, and docs.spec.ts crawls the built pages); a link VitePress resolves, such as
 * `/guide/tools` or `./tools`, can still be a 404 on GitHub.
 */

/** The markdown a reader opens on GitHub: documentationFiles() and the READMEs of examples/. */
function markdownFiles(): string[] {
  const examples = join(ROOT, 'examples');
  const readmes = [join(examples, 'README.md')];
  for (const entry of readdirSync(examples, { withFileTypes: true })) {
    if (entry.isDirectory()) readmes.push(join(examples, entry.name, 'README.md'));
  }
  return [...documentationFiles(), ...readmes.filter((file) => existsSync(file))];
}

/**
 * The lines of a markdown file as GitHub renders them as markdown: front matter, fenced code and HTML comments
 * are blanked, so that a line's index is still its place in the file.
 */
function proseLines(markdown: string): string[] {
  const blank = (text: string) => text.replace(/[^\n]/g, '');
  const text = markdown.replace(/^---\n[\s\S]*?\n---\n/, blank).replace(/<!--[\s\S]*?-->/g, blank);
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    fence = marker;
    return marker ? '' : line;
  });
}

/** The targets of a line's links and images, inline, reference-style or HTML, code spans aside. */
function targetsOf(line: string): string[] {
  const prose = line.replace(/(`+)[\s\S]*?\1/g, '');
  const targets = [...prose.matchAll(/\]\(\s*<?([^\s)>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  targets.push(...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?([^\s>]+)/g)].map((m) => m[1]));
  targets.push(...[...prose.matchAll(/\b(?:href|src)="([^"]*)"/g)].map((m) => m[1]));
  return targets.filter((target) => !/^([a-z][a-z\d+.-]*:|\/\/)/i.test(target));
}

/** A heading's id on GitHub: its text lowercased, punctuation but `-` and `_` dropped, each space a hyphen. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`+/g, '')
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file on GitHub; a second heading of the same slug gets `-1`, a third `-2`. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = githubSlug(heading[1]);
    let unique = slug;
    for (let n = 1; anchors.has(unique); n++) unique = `${slug}-${n}`;
    anchors.add(unique);
  }
  return anchors;
}

/**
 * Whether the repository's .gitignore keeps `path` off GitHub (docs/api, which TypeDoc writes, exists only once
 * `npm run docs` has run). Only its folder entries are read: `name/` anywhere, `a/b/` from the root.
 */
function ignored(path: string): boolean {
  const segments = relative(ROOT, path).split(sep);
  return readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .filter((line) => /^[^#!*?[]+\/$/.test(line.trim()))
    .some((line) => {
      const folder = line
        .trim()
        .replace(/^\/|\/$/g, '')
        .split('/');
      if (folder.length === 1) return segments.includes(folder[0]);
      return folder.every((name, i) => segments[i] === name);
    });
}

/** What is wrong with `target` in `file` on GitHub, or undefined when it opens what it names. */
function brokenOnGitHub(file: string, target: string): string | undefined {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  let resolved = file;
  if (path.startsWith('/')) {
    // GitHub reads /x from the repository root, the site from docs/: they agree only for the examples, whose
    // pages the site generates from examples/.
    if (!/^\/examples(\/|$)/.test(path)) return 'site-absolute: GitHub reads it from the repository root';
    resolved = join(ROOT, decodeURIComponent(path));
  } else if (path) resolved = resolve(dirname(file), decodeURIComponent(path));
  if (resolved !== ROOT && !resolved.startsWith(ROOT + sep)) return 'outside the repository';
  // The site serves docs/ only: a page's relative link out of it is dead there (an example is /examples/<name>).
  const docs = join(ROOT, 'docs') + sep;
  if (file.startsWith(docs) && !path.startsWith('/') && !resolved.startsWith(docs)) return 'out of docs/, which the site serves';
  if (ignored(resolved)) return `git-ignored, so not on GitHub: ${relative(ROOT, resolved)}`;
  if (!existsSync(resolved)) return `no such file: ${relative(ROOT, resolved)}`;
  if (statSync(resolved).isDirectory()) {
    // GitHub shows a folder's README under its listing; a folder without one is a bare listing.
    resolved = join(resolved, 'README.md');
    if (!existsSync(resolved)) return `a folder without a README.md: ${relative(ROOT, dirname(resolved))}`;
  }
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : 'an anchor into a file that is not markdown';
  return anchorsOf(resolved).has(decodeURIComponent(anchor)) ? undefined : `no heading #${anchor} in ${relative(ROOT, resolved)}`;
}

describe('the documentation on GitHub', () => {
  it('links only files that exist, relative to the linking file, and anchors that are headings of their target', () => {
    const files = markdownFiles();
    const broken: string[] = [];
    let links = 0;
    for (const file of files) {
      proseLines(readFileSync(file, 'utf8')).forEach((line, index) => {
        for (const target of targetsOf(line)) {
          links++;
          const problem = brokenOnGitHub(file, target);
          if (problem) broken.push(`${relative(ROOT, file)}:${index + 1} (${target}) ${problem}`);
        }
      });
    }
    expect(broken).toEqual([]);
    // The guides link each other: a parser that found nothing would pass the check above.
    expect(files.length).toBeGreaterThan(30);
    expect(links).toBeGreaterThan(150);
  });
});
