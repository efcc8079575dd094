import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { CliError } from './cli-error';

/** The formats clients keep their configuration in. */
export type ConfigFormat = 'json' | 'toml' | 'yaml';

/** What writing an entry into a configuration file did. */
export interface ConfigWrite {
  readonly file: string;
  /** The copy of the file as it was, when there was one. */
  readonly backup?: string;
  /** True when an entry of that name was there and is replaced. */
  readonly replaced: boolean;
}

/**
 * Sets `value` at `path` (the server's entry, e.g. ['mcpServers', 'notes']) in a client's configuration
 * file and writes it back, keeping everything else: the other servers, the other settings, and in JSON
 * (with comments, as VS Code allows) and YAML the comments and layout too. An existing file is copied
 * to `<file>.bak` first; a file that does not parse is refused, untouched.
 */
export function writeConfigEntry(
  file: string,
  format: ConfigFormat,
  path: readonly string[],
  value: unknown,
  /** Another place the entry needs, merged with what the file holds there (VS Code's `inputs`). */
  extra?: { path: readonly string[]; merge: (current: unknown) => unknown },
): ConfigWrite {
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  const entry = withEntry(before ?? '', format, path, value, file);
  const replaced = entry.replaced;
  const text = extra
    ? withEntry(entry.text, format, extra.path, extra.merge(valueIn(entry.text, format, extra.path)), file).text
    : entry.text;
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | undefined;
  if (before !== undefined) {
    backup = `${file}.bak`;
    copyFileSync(file, backup);
  }
  writeFileSync(file, text);
  return { file, backup, replaced };
}

/** The text of a configuration with `value` at `path`; throws CliError when the text does not parse. */
export function withEntry(
  text: string,
  format: ConfigFormat,
  path: readonly string[],
  value: unknown,
  file = 'the configuration',
): { text: string; replaced: boolean } {
  if (format === 'json') return jsonWith(text, path, value, file);
  if (format === 'yaml') return yamlWith(text, path, value, file);
  return tomlWith(text, path, value, file);
}

/** The value at `path` of a configuration's text (which parses: `withEntry` wrote it). */
function valueIn(text: string, format: ConfigFormat, path: readonly string[]): unknown {
  const tree: unknown =
    format === 'json'
      ? loadJsonc().parse(text, [], { allowTrailingComma: true })
      : format === 'yaml'
        ? loadYaml().parse(text)
        : loadToml().parse(text);
  return valueAt(tree, path);
}

/** An entry on its own, in the client's format: what `--print` shows. */
export function formatEntry(format: ConfigFormat, path: readonly string[], value: unknown): string {
  return withEntry('', format, path, value).text;
}

function jsonWith(text: string, path: readonly string[], value: unknown, file: string): { text: string; replaced: boolean } {
  const jsonc = loadJsonc();
  const errors: import('jsonc-parser').ParseError[] = [];
  const source = text.trim() === '' ? '{}' : text;
  const tree: unknown = jsonc.parse(source, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof tree !== 'object' || tree === null || Array.isArray(tree)) {
    const at = errors[0] ? ` (${jsonc.printParseErrorCode(errors[0].error)} at offset ${errors[0].offset})` : ': not a JSON object';
    throw new CliError(`cannot read ${file}${at}; it is left as it is: fix it, or pass --config to write elsewhere`);
  }
  checkContainers(tree as Record<string, unknown>, path, file);
  const replaced = valueAt(tree, path) !== undefined;
  // The edit as it comes, then laid out alone: jsonc-parser's own formatting of an insertion takes in the whole
  // line before it, which would re-expand the user's one-line entries.
  const [edit] = jsonc.modify(source, [...path], value, {});
  const edited = jsonc.applyEdits(source, [edit]);
  const ours = { offset: Math.max(0, edit.offset - 1), length: edit.content.length + 2 };
  const out = jsonc.applyEdits(edited, jsonc.format(edited, ours, { ...layoutOf(source), keepLines: false }));
  return { text: out.endsWith('\n') ? out : `${out}\n`, replaced };
}

/** The indentation and line ends a JSON text already uses (in a new one: two spaces, LF). */
function layoutOf(text: string): import('jsonc-parser').FormattingOptions {
  const indent = /^([ \t]+)["}\]]/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 4, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

function yamlWith(text: string, path: readonly string[], value: unknown, file: string): { text: string; replaced: boolean } {
  const YAML = loadYaml();
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) throw new CliError(`cannot read ${file} (${doc.errors[0].message.split('\n')[0]}); it is left as it is`);
  const tree: unknown = doc.toJS() ?? {};
  if (typeof tree !== 'object' || Array.isArray(tree)) throw new CliError(`cannot read ${file}: not a YAML mapping; it is left as it is`);
  checkContainers(tree as Record<string, unknown>, path, file);
  const replaced = doc.getIn([...path]) !== undefined;
  doc.setIn([...path], doc.createNode(value));
  return { text: doc.toString({ lineWidth: 0 }), replaced };
}

/**
 * TOML keeps comments that no TOML library writes back, so the file is edited as text: a new server's table
 * is appended, an existing one's tables are replaced where they are. Only an entry written otherwise (an
 * inline table, dotted keys) makes the file rewritten from its parsed data, without its comments.
 */
function tomlWith(text: string, path: readonly string[], value: unknown, file: string): { text: string; replaced: boolean } {
  const TOML = loadToml();
  let tree: Record<string, unknown>;
  try {
    tree = TOML.parse(text);
  } catch (error) {
    throw new CliError(`cannot read ${file} (${(error as Error).message.split('\n')[0]}); it is left as it is`);
  }
  checkContainers(tree, path, file);
  const replaced = valueAt(tree, path) !== undefined;
  const table: Record<string, unknown> = {};
  setAt(table, path, value);
  const tables = TOML.stringify(table);
  if (!replaced) {
    const separator = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    return { text: `${text}${separator}${tables}\n`, replaced };
  }
  setAt(tree, path, value);
  const rewritten = TOML.stringify(tree) + '\n';
  const inPlace = replacedTables(text, path, tables);
  // The edit stands only when the file then reads as the entry set in the data (else the entry is not in tables).
  return { text: inPlace !== undefined && sameData(inPlace, rewritten) ? inPlace : rewritten, replaced };
}

/**
 * The text with the tables of the entry at `path` (its own and its sub-tables, each up to the next table
 * header, less the blank and comment lines before that header) replaced by `tables`, where the first was;
 * undefined when the text has no such table.
 */
function replacedTables(text: string, path: readonly string[], tables: string): string | undefined {
  const lines = text.split('\n');
  const headers = lines.flatMap((line, at) => {
    const key = headerKey(line);
    return key ? [{ at, ours: key.length >= path.length && path.every((part, j) => key[j] === part) }] : [];
  });
  // Our tables, those that follow each other taken as one.
  const spans: { start: number; end: number }[] = [];
  headers.forEach(({ at, ours }, i) => {
    if (!ours) return;
    const end = i + 1 < headers.length ? headers[i + 1].at : lines.length;
    const last = spans[spans.length - 1];
    if (last?.end === at) last.end = end;
    else spans.push({ start: at, end });
  });
  if (spans.length === 0) return undefined;
  const blank = (line: string) => /^\s*$/.test(line);
  for (const [i, span] of spans.entries()) {
    while (span.end > span.start + 1 && /^\s*(#.*)?\s*$/.test(lines[span.end - 1])) span.end--;
    // A table moved up leaves no gap behind.
    if (i > 0) while (span.start > 0 && blank(lines[span.start - 1])) span.start--;
  }
  const eol = text.includes('\r\n') ? '\r' : '';
  const ours = tables
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => line + eol);
  return lines.flatMap((line, i) => (i === spans[0].start ? ours : spans.some((s) => i >= s.start && i < s.end) ? [] : [line])).join('\n');
}

/** The key of a table header line (`[a."b c".d]`, `[[a.b]]`), as its parts; undefined for any other line. */
function headerKey(line: string): string[] | undefined {
  if (!/^\s*\[/.test(line)) return undefined;
  let node: unknown;
  try {
    node = loadToml().parse(line.replace(/\r$/, ''));
  } catch {
    return undefined;
  }
  const key: string[] = [];
  for (;;) {
    if (Array.isArray(node) && node.length === 1) node = node[0];
    if (typeof node !== 'object' || node === null) return key;
    const keys = Object.keys(node);
    if (keys.length !== 1) return key.length > 0 ? key : undefined;
    key.push(keys[0]);
    node = (node as Record<string, unknown>)[keys[0]];
  }
}

function sameData(text: string, other: string): boolean {
  try {
    return isDeepStrictEqual(loadToml().parse(text), loadToml().parse(other));
  } catch {
    return false;
  }
}

/** Refuses a file where a level of `path` holds something other than a table (`"mcpServers": []`). */
function checkContainers(tree: Record<string, unknown>, path: readonly string[], file: string): void {
  let node: unknown = tree;
  for (const key of path.slice(0, -1)) {
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return;
    if (typeof node !== 'object' || node === null || Array.isArray(node))
      throw new CliError(`cannot add to ${file}: "${key}" is not an object there; it is left as it is`);
  }
}

function valueAt(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function setAt(tree: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1]] = value;
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded by the install command alone, not by every mcpkit command */
function loadJsonc(): typeof import('jsonc-parser') {
  return require('jsonc-parser') as typeof import('jsonc-parser');
}

function loadYaml(): typeof import('yaml') {
  return require('yaml') as typeof import('yaml');
}

function loadToml(): typeof import('smol-toml') {
  return require('smol-toml') as typeof import('smol-toml');
}
/* eslint-enable @typescript-eslint/no-require-imports */
