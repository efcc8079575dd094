import type * as Yaml from 'yaml';
import { type SkillFrontmatter, SKILL_LIMITS } from './skill.types';

/** A SKILL.md's leading `---` block (after an optional BOM), with its YAML. */
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The Agent Skills naming rules: 1 to 64 lowercase letters, digits and single hyphens, no hyphen at either end. */
const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;

/**
 * The frontmatter of a SKILL.md, parsed as YAML 1.2 (core schema) and checked: `name` and `description`
 * present and valid, every value one JSON carries as it is. Throws an Error saying what is wrong.
 */
export function parseFrontmatter(text: string): SkillFrontmatter {
  const block = FRONTMATTER.exec(text);
  if (!block) throw new Error('SKILL.md must begin with YAML frontmatter between "---" lines');
  const parsed = parseYaml(block[1]);
  if (!isPlainObject(parsed)) throw new Error('its frontmatter must be a YAML mapping (name: ..., description: ...)');
  return checkFrontmatter(parsed);
}

/** The frontmatter of a SKILL.md's text as YAML makes it, unchecked (a host comparing it with an entry); undefined when there is none. */
export function readFrontmatter(text: string): { frontmatter: unknown; body: string } | undefined {
  const block = FRONTMATTER.exec(text);
  return block ? { frontmatter: parseYaml(block[1]), body: text.slice(block[0].length) } : undefined;
}

function parseYaml(source: string): unknown {
  try {
    return yaml().parse(source);
  } catch (error) {
    throw new Error(`its frontmatter is not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, {
      cause: error,
    });
  }
}

/** `frontmatter` when its name and description are valid and JSON carries every value unchanged; throws saying what is wrong. */
export function checkFrontmatter(frontmatter: Record<string, unknown>): SkillFrontmatter {
  const problem =
    jsonProblem(frontmatter, 'frontmatter') ??
    nameProblem(frontmatter.name) ??
    descriptionProblem(frontmatter.description) ??
    optionalFieldsProblem(frontmatter);
  if (problem) throw new Error(problem);
  return frontmatter as SkillFrontmatter;
}

/** The optional fields the Agent Skills specification defines, when present: their types and bounds. */
function optionalFieldsProblem(frontmatter: Record<string, unknown>): string | undefined {
  for (const field of ['license', 'compatibility', 'allowed-tools']) {
    if (field in frontmatter && typeof frontmatter[field] !== 'string') return `"${field}" must be a string`;
  }
  if (typeof frontmatter.compatibility === 'string' && frontmatter.compatibility.length > MAX_COMPATIBILITY)
    return `"compatibility" is longer than ${MAX_COMPATIBILITY} characters`;
  const { metadata } = frontmatter;
  if (metadata !== undefined && (!isPlainObject(metadata) || Object.values(metadata).some((v) => typeof v !== 'string')))
    return '"metadata" must map names to strings (quote numbers and dates; lists are not allowed)';
  return undefined;
}

/** Why `name` breaks the Agent Skills naming rules, or undefined. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'the frontmatter needs a "name"';
  if (name.length > MAX_NAME || !NAME.test(name))
    return (
      `name "${name}" breaks the Agent Skills naming rules ` +
      `(1 to ${MAX_NAME} lowercase letters, digits and single hyphens, no hyphen at either end)`
    );
  return undefined;
}

function descriptionProblem(description: unknown): string | undefined {
  if (typeof description !== 'string' || description.trim() === '') return 'the frontmatter needs a non-empty "description"';
  if (description.length > MAX_DESCRIPTION) return `its description is longer than ${MAX_DESCRIPTION} characters`;
  return undefined;
}

/** Why a skill of `files` files and `bytes` bytes is over the extension's limits, or undefined. */
export function limitProblem(files: number, bytes: number): string | undefined {
  if (files > SKILL_LIMITS.files) return `it has ${files} files, more than the ${SKILL_LIMITS.files} a host must accept`;
  if (bytes > SKILL_LIMITS.bytes) return `its files total ${bytes} bytes, more than the ${SKILL_LIMITS.bytes} (16 MiB) a host must accept`;
  return undefined;
}

/**
 * The YAML text of a frontmatter, for a SKILL.md written from code. Long values stay on one line: hosts
 * parse frontmatter with small parsers too (the official SDK's reads no quoted value over several lines).
 */
export function renderFrontmatter(frontmatter: SkillFrontmatter): string {
  return `---\n${yaml().stringify(frontmatter, { lineWidth: 0 })}---\n`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** Where a parsed value is something JSON does not carry unchanged (a non-finite number, a YAML-only type). */
function jsonProblem(value: unknown, path: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot carry`;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const odd = jsonProblem(item, `${path}[${i}]`);
      if (odd) return odd;
    }
    return undefined;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const odd = jsonProblem(item, `${path}.${key}`);
      if (odd) return odd;
    }
    return undefined;
  }
  return `${path} is a ${typeof value} JSON cannot carry`;
}

let loaded: typeof Yaml | undefined;

/** The yaml library, loaded when the first skill is read: a server without skills starts without it. */
function yaml(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('yaml') as typeof Yaml);
}
