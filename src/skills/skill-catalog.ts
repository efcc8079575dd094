import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { McpContext } from '../context/mcp-context';
import type { CacheHint } from '../contracts/cache-hints';
import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import { ErrorCode } from '../mcp/json-rpc';
import { McpError } from '../mcp/mcp.error';
import type { ReadResourceResult, ResourceDefinition } from '../mcp/mcp-types';
import type { Contribution } from '../registry/contribution';
import type { ResourceDescriptor } from '../registry/descriptors';
import { dynamicResource } from '../registry/dynamic-builder';
import type { DynamicAccess } from '../registry/dynamic-definitions';
import { type FolderSkill, inside, readSkillFolder } from './skill-folder';
import { isTextType, mimeTypeOf } from './skill-mime';
import { checkFrontmatter, limitProblem, renderFrontmatter } from './skill-rules';
import { DIRECTORY_MIME_TYPE, type SkillEntry, type SkillFrontmatter, SKILL_LIMITS, type SkillResource } from './skill.types';

/** A file of a skill written in code: text, bytes, or a function that makes it for each read. */
export type SkillContent = string | Uint8Array | ((ctx: McpContext) => string | Uint8Array | Promise<string | Uint8Array>);

/**
 * A skill written in code (`app.addSkill`). Its SKILL.md is its frontmatter (`name`, `description` and
 * `frontmatter`) followed by `instructions`. When the instructions or a file is a function, the skill
 * is generated for each read and listed with `resources: "dynamic"` (no digests to publish).
 */
export interface SkillDefinition extends DynamicAccess {
  /** The skill's name (Agent Skills rules: lowercase letters, digits, single hyphens): the URI's last segment. */
  name: string;
  /** What the skill does and when to use it, for the model choosing skills. */
  description: string;
  /** Folders above the skill in its URI: `acme/billing` serves `skill://acme/billing/<name>/SKILL.md`. */
  prefix?: string;
  /** Further frontmatter fields (`license`, `metadata`, ...), passed through verbatim. */
  frontmatter?: Record<string, unknown>;
  /** The markdown after the frontmatter. */
  instructions: string | ((ctx: McpContext) => string | Promise<string>);
  /** Supporting files by path in the skill (`references/GUIDE.md`). */
  files?: Record<string, SkillContent>;
}

/** A folder of skills, with the URI prefix and the access its skills get. */
export interface SkillFolderOptions extends DynamicAccess {
  /** The folder: each folder under it holding a SKILL.md is a skill. Relative paths start at the working directory. */
  path: string;
  /** Folders above its skills in their URIs (`acme` serves `skill://acme/<skill path>/SKILL.md`). */
  prefix?: string;
}

/** The Skills extension (SEP-2640): where skills come from and how they are served. */
export interface SkillsOptions {
  /** Folders of skills (a path, or a path with a prefix and access rules). */
  folders?: (string | SkillFolderOptions)[];
  /**
   * Read the folders again when their files change, so digests follow edits. Default: on under `mcpkit dev` (which
   * sets `MCPKIT_DEV=1`), off otherwise: a deployed server's skills change with its release, not while it runs.
   */
  watch?: boolean;
  /** Serve `resources/directory/read` on skill folders (default true). */
  directoryRead?: boolean;
  /** `ttlMs` and `cacheScope` of skills/list and skills/get results (default: the application's `cache.lists`, else 0). */
  cache?: CacheHint;
}

/** A skill as served: its entry and the resources of its files (the SKILL.md's says who may see the skill). */
export interface ServedSkill {
  readonly entry: SkillEntry;
  readonly skillMd: ResourceDescriptor;
  readonly files: readonly ResourceDescriptor[];
}

/** A child of a directory resource, with the skills that make it visible. */
interface DirectoryChild {
  readonly definition: ResourceDefinition;
  readonly skills: Set<ServedSkill>;
}

/**
 * The skills a server serves, from folders and from code: their entries, the resources of their files
 * (contributed to the registry, so resources/list and resources/read serve them) and the directories
 * they make.
 */
export class SkillCatalog {
  private fromFolders: ServedSkill[] = [];
  private readonly fromCode = new Map<string, ServedSkill>();
  private all?: Map<string, ServedSkill>;
  private added = false;
  private directories?: Map<string, Map<string, DirectoryChild>>;

  /** Moves on with every change (list pages made for an older version are dropped). */
  version = 0;

  constructor(readonly options: SkillsOptions) {}

  /** Reads the folders (again); throws an InvalidDefinitionError for a skill that breaks a rule, keeping what was served. */
  async load(): Promise<void> {
    const folders = (this.options.folders ?? []).map((f) => (typeof f === 'string' ? { path: f } : f));
    const read = await Promise.all(folders.map(async (folder) => ({ folder, skills: await readSkillFolder(folder.path) })));
    const skills = read.flatMap(({ folder, skills }) => skills.map((skill) => servedFolderSkill(folder, skill)));
    const seen = new Set(this.fromCode.keys());
    for (const { entry } of skills) {
      if (seen.has(entry.uri)) throw new InvalidDefinitionError(`Skill ${entry.uri}`, 'is served twice (give one of its folders a prefix)');
      seen.add(entry.uri);
    }
    this.fromFolders = skills;
    this.changed();
  }

  /** The folders to watch for changes. */
  get folders(): string[] {
    return (this.options.folders ?? []).map((f) => (typeof f === 'string' ? f : f.path));
  }

  add(definition: SkillDefinition): ServedSkill {
    const skill = servedCodeSkill(definition);
    if (this.fromCode.has(skill.entry.uri) || this.fromFolders.some((s) => s.entry.uri === skill.entry.uri))
      throw new InvalidDefinitionError(`Skill ${skill.entry.uri}`, 'is already served');
    this.fromCode.set(skill.entry.uri, skill);
    this.added = true;
    this.changed();
    return skill;
  }

  /** Stops serving a skill added in code; false when there is none at `uri`. */
  remove(uri: string): boolean {
    const had = this.fromCode.delete(uri);
    if (had) this.changed();
    return had;
  }

  /** True once skills are configured (folders) or were added in code: the extension is served from then on, even with none left. */
  get configured(): boolean {
    return this.folders.length > 0 || this.added;
  }

  /** Every skill, by URI. */
  skills(): ServedSkill[] {
    return [...this.served().values()];
  }

  /** The skill whose SKILL.md is at `uri`. */
  skill(uri: string): ServedSkill | undefined {
    return this.served().get(uri);
  }

  /** The direct children of the directory at `uri`, each with the skills it belongs to; undefined when `uri` is no directory. */
  directory(uri: string): ReadonlyMap<string, DirectoryChild> | undefined {
    return this.tree().get(uri);
  }

  /** The resources of every skill's files, for the registry (names may repeat across skills). */
  contribution(): Contribution {
    const byUri = new Map<string, ResourceDescriptor>();
    for (const skill of this.served().values()) for (const file of skill.files) if (!byUri.has(file.uri)) byUri.set(file.uri, file);
    return { resources: [...byUri.values()], uniqueResourceNames: false };
  }

  private changed(): void {
    this.version++;
    this.all = undefined;
    this.directories = undefined;
  }

  private served(): Map<string, ServedSkill> {
    if (this.all) return this.all;
    const skills = [...this.fromFolders, ...this.fromCode.values()].sort((a, b) => (a.entry.uri < b.entry.uri ? -1 : 1));
    return (this.all = new Map(skills.map((s) => [s.entry.uri, s])));
  }

  /** Every directory of every skill file's URI, from the URI's authority down, to its children. */
  private tree(): Map<string, Map<string, DirectoryChild>> {
    if (this.directories) return this.directories;
    const tree = new Map<string, Map<string, DirectoryChild>>();
    const childOf = (dir: string, uri: string, definition: () => ResourceDefinition) => {
      let children = tree.get(dir);
      if (!children) tree.set(dir, (children = new Map<string, DirectoryChild>()));
      let child = children.get(uri);
      if (!child) children.set(uri, (child = { definition: definition(), skills: new Set() }));
      return child;
    };
    for (const skill of this.served().values()) {
      for (const file of skill.files) {
        const [scheme, rest] = splitUri(file.uri);
        const segments = rest.split('/');
        let dir = `${scheme}${segments[0]}`;
        if (!tree.has(dir)) tree.set(dir, new Map());
        for (let i = 1; i < segments.length; i++) {
          const uri = `${dir}/${segments[i]}`;
          const last = i === segments.length - 1;
          const name = decodeURIComponent(segments[i]);
          childOf(dir, uri, () => (last ? file.definition : { uri, name, mimeType: DIRECTORY_MIME_TYPE })).skills.add(skill);
          if (!last && !tree.has(uri)) tree.set(uri, new Map());
          dir = uri;
        }
      }
    }
    return (this.directories = tree);
  }
}

function splitUri(uri: string): [string, string] {
  const at = uri.indexOf('://') + 3;
  return [uri.slice(0, at), uri.slice(at)];
}

/** `skill://<prefix>/<skill path>/<file path>`, each segment percent-encoded. */
function skillUri(prefix: string | undefined, skillPath: string, filePath?: string): string {
  const segments = [...(prefix ? prefix.split('/') : []), ...skillPath.split('/'), ...(filePath ? filePath.split('/') : [])];
  return `skill://${segments.map(encodeURIComponent).join('/')}`;
}

function checkPrefix(what: string, prefix: string | undefined): void {
  if (prefix === undefined) return;
  if (typeof prefix !== 'string' || prefix.split('/').some((s) => s === '' || s === '.' || s === '..'))
    throw new InvalidDefinitionError(what, `prefix "${String(prefix)}" must be folder names separated by "/"`);
}

function servedFolderSkill(folder: SkillFolderOptions, skill: FolderSkill): ServedSkill {
  checkPrefix(`Skills folder "${folder.path}"`, folder.prefix);
  const uri = skillUri(folder.prefix, skill.skillPath, 'SKILL.md');
  const resources: SkillResource[] = [];
  const files = skill.files.map((file) => {
    const fileUri = skillUri(folder.prefix, skill.skillPath, file.path);
    resources.push({ uri: fileUri, digest: file.digest, size: file.size });
    return fileResource(folder, skill.frontmatter, fileUri, file.path, file.size, () =>
      readFolderFile(skill.folder, file.absolute, fileUri),
    );
  });
  return { entry: { uri, frontmatter: skill.frontmatter, resources }, skillMd: files[0], files };
}

function servedCodeSkill(definition: SkillDefinition): ServedSkill {
  if (typeof definition !== 'object' || definition === null) throw new InvalidDefinitionError('addSkill', 'expects a definition object');
  const what = `Skill "${String(definition.name)}"`;
  checkPrefix(what, definition.prefix);
  const extra = definition.frontmatter ?? {};
  if ('name' in extra || 'description' in extra)
    throw new InvalidDefinitionError(what, 'give the name and the description as members of the definition, not in frontmatter');
  let frontmatter: SkillFrontmatter;
  try {
    frontmatter = checkFrontmatter({ name: definition.name, description: definition.description, ...extra });
  } catch (error) {
    throw new InvalidDefinitionError(what, (error as Error).message);
  }
  const head = renderFrontmatter(frontmatter);
  const { instructions } = definition;
  if (typeof instructions !== 'string' && typeof instructions !== 'function')
    throw new InvalidDefinitionError(what, 'instructions must be markdown text or a function returning it');
  const contents: [string, SkillContent][] = [
    ['SKILL.md', typeof instructions === 'string' ? `${head}\n${instructions}` : async (ctx) => `${head}\n${await instructions(ctx)}`],
  ];
  for (const [path, content] of Object.entries(definition.files ?? {})) {
    if (path === 'SKILL.md' || path.split('/').some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.')))
      throw new InvalidDefinitionError(what, `file path "${path}" must be a relative path of plain folder and file names, not SKILL.md`);
    if (typeof content !== 'string' && typeof content !== 'function' && !(content instanceof Uint8Array))
      throw new InvalidDefinitionError(what, `file "${path}" must be text, bytes or a function returning them`);
    contents.push([path, content]);
  }
  const dynamic = contents.some(([, content]) => typeof content === 'function');
  const bytesOf = (content: string | Uint8Array) => (typeof content === 'string' ? Buffer.from(content) : content);
  const sizes = contents.map(([, content]) => (typeof content === 'function' ? 0 : bytesOf(content).length));
  const problem = limitProblem(
    contents.length,
    sizes.reduce((a, b) => a + b, 0),
  );
  if (problem) throw new InvalidDefinitionError(what, problem);
  const skillPath = definition.name;
  const resources: SkillResource[] = [];
  const files = contents.map(([path, content], i) => {
    const uri = skillUri(definition.prefix, skillPath, path);
    if (typeof content !== 'function') resources.push({ uri, digest: digestOf(bytesOf(content)), size: sizes[i] });
    const read = async (ctx: McpContext) => contentsOf(uri, mimeTypeOf(path), typeof content === 'function' ? await content(ctx) : content);
    return fileResource(definition, frontmatter, uri, path, typeof content === 'function' ? undefined : sizes[i], read);
  });
  const entry: SkillEntry = { uri: files[0].uri, frontmatter, resources: dynamic ? 'dynamic' : resources };
  return { entry, skillMd: files[0], files };
}

/** The registry resource of one file: the SKILL.md carries the skill's name and description. */
function fileResource(
  access: DynamicAccess,
  frontmatter: SkillFrontmatter,
  uri: string,
  path: string,
  size: number | undefined,
  read: (ctx: McpContext) => Promise<ReadResourceResult>,
): ResourceDescriptor {
  const skillMd = path === 'SKILL.md';
  const built = dynamicResource({
    uri,
    name: skillMd ? frontmatter.name : path.slice(path.lastIndexOf('/') + 1),
    description: skillMd ? frontmatter.description : undefined,
    mimeType: mimeTypeOf(path),
    size,
    scopes: access.scopes,
    guards: access.guards,
    middleware: access.middleware,
    handler: read,
  });
  return (built as { resource: ResourceDescriptor }).resource;
}

/** A file of a folder skill, read now: still inside the skill's folder (a link swapped since is refused) and within the size limit. */
async function readFolderFile(folder: string, absolute: string, uri: string): Promise<ReadResourceResult> {
  const real = await fs.realpath(absolute).catch(() => undefined);
  if (!real || !inside(folder, real)) throw McpError.resourceNotFound(uri);
  const handle = await fs.open(real, 'r');
  try {
    const { size } = await handle.stat();
    if (size > SKILL_LIMITS.bytes) throw new McpError(ErrorCode.InternalError, `${uri} has grown past ${SKILL_LIMITS.bytes} bytes`);
    return contentsOf(uri, mimeTypeOf(uri), await handle.readFile());
  } finally {
    await handle.close();
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A file's contents: text when its type is textual and its bytes are UTF-8 (so the digest covers what the
 * host re-encodes), else a base64 blob.
 */
function contentsOf(uri: string, mimeType: string, content: string | Uint8Array): ReadResourceResult {
  if (typeof content === 'string') return { contents: [{ uri, mimeType, text: content }] };
  if (isTextType(mimeType)) {
    try {
      return { contents: [{ uri, mimeType, text: UTF8.decode(content) }] };
    } catch {
      // Not UTF-8: sent as bytes.
    }
  }
  return { contents: [{ uri, mimeType, blob: Buffer.from(content).toString('base64') }] };
}

function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
