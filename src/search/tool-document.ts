import { identifierWords } from './identifier-words';
import type { SearchableTool } from './searchable-tool';

/** How deep the parameters of nested objects and array items are read: deeper ones are rarely what a caller asks for. */
const MAX_SCHEMA_DEPTH = 4;
/** At most this many parameters are read from one tool, so that one huge schema cannot swell the index. */
const MAX_PARAMETERS = 200;

/** One parameter of a tool's input, nested ones included, as words to search. */
export interface ToolParameterText {
  /** The property name as the schema spells it, e.g. `assigneeIds`. */
  readonly name: string;
  /** The property name split into lower-case words, e.g. `assignee ids`. */
  readonly words: string;
  /** The property's description, when the schema gives one. */
  readonly description?: string;
}

/**
 * The searchable text of one tool, extracted once when an index is built or a tool is added. Rankers index
 * these fields; an author's own ranker (embeddings, say) reads the same text.
 */
export interface ToolDocument {
  /** The tool's name, its key in every ranker. */
  readonly name: string;
  /** The name split into lower-case words (`create_pull_request` gives `create pull request`). */
  readonly nameWords: string;
  /** The title, or the title annotation, or empty. */
  readonly title: string;
  /** The description, or empty. */
  readonly description: string;
  /** The input's properties, nested object properties and array items included, in schema order. */
  readonly parameters: readonly ToolParameterText[];
  /** The tool's tags. */
  readonly tags: readonly string[];
}

/** The searchable text of a tool: its name's words, title, description, parameters and tags. */
export function toToolDocument(tool: SearchableTool): ToolDocument {
  const parameters: ToolParameterText[] = [];
  collectParameters(tool.inputSchema, tool.inputSchema, 0, new Set(), parameters);
  return {
    name: tool.name,
    nameWords: identifierWords(tool.name).join(' '),
    title: tool.title ?? tool.annotations?.title ?? '',
    description: tool.description ?? '',
    parameters,
    tags: tool.tags ?? [],
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A value as a list: itself when it is an array, else a list of it (or of nothing when it is absent). */
function asList(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value as readonly unknown[];
  return value === undefined ? [] : [value];
}

/** A local reference (`#/$defs/Address`, `#/definitions/Address`) resolved against the root schema. */
function resolveRef(ref: string, root: Record<string, unknown>): Record<string, unknown> | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const name = match[2].replace(/~1/g, '/').replace(/~0/g, '~');
  return asRecord(asRecord(root[match[1]])?.[name]);
}

/**
 * Walks a schema for its properties: object properties, array items, the branches of anyOf/oneOf/allOf and
 * local $refs, to MAX_SCHEMA_DEPTH; a $ref already being walked (a recursive type) is not walked again.
 */
function collectParameters(
  schema: unknown,
  root: Record<string, unknown>,
  depth: number,
  refsInWalk: Set<string>,
  into: ToolParameterText[],
): void {
  const node = asRecord(schema);
  if (!node || depth > MAX_SCHEMA_DEPTH || into.length >= MAX_PARAMETERS) return;
  if (typeof node.$ref === 'string') {
    if (refsInWalk.has(node.$ref)) return;
    refsInWalk.add(node.$ref);
    collectParameters(resolveRef(node.$ref, root), root, depth, refsInWalk, into);
    refsInWalk.delete(node.$ref);
  }
  for (const [name, property] of Object.entries(asRecord(node.properties) ?? {})) {
    if (into.length >= MAX_PARAMETERS) return;
    const description = asRecord(property)?.description;
    into.push({ name, words: identifierWords(name).join(' '), ...(typeof description === 'string' ? { description } : {}) });
    collectParameters(property, root, depth + 1, refsInWalk, into);
  }
  for (const branch of [node.items, node.prefixItems, node.anyOf, node.oneOf, node.allOf].flatMap(asList)) {
    collectParameters(branch, root, depth + 1, refsInWalk, into);
  }
}
