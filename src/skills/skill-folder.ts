import { createHash } from 'node:crypto';
import { type Dirent, promises as fs } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { InvalidDefinitionError } from '../errors/invalid-definition.error';
import { limitProblem, parseFrontmatter } from './skill-rules';
import type { SkillFrontmatter } from './skill.types';

/** A file of a skill on disk. */
export interface SkillFile {
  /** Its path in the skill, `/`-separated: `SKILL.md`, `references/GUIDE.md`. */
  readonly path: string;
  /** Where it is (symbolic links resolved). */
  readonly absolute: string;
  readonly size: number;
  /** `sha256:<hex>` of its bytes. */
  readonly digest: string;
}

/** A skill read from a folder. */
export interface FolderSkill {
  /** Its path under the skills folder (`acme/billing/refunds`): the URI's skill path. */
  readonly skillPath: string;
  /** Its folder (symbolic links resolved). */
  readonly folder: string;
  readonly frontmatter: SkillFrontmatter;
  /** Every file, nested skills' included, SKILL.md first, then by path. */
  readonly files: readonly SkillFile[];
}

interface Found {
  /** Path under the skills folder, `/`-separated. */
  readonly path: string;
  readonly absolute: string;
  readonly size: number;
}

/**
 * The skills of a folder: each folder under it holding a `SKILL.md` is a skill, at any depth (a skill
 * may hold nested skills). Names starting with a dot are skipped (`.git`, `.DS_Store`); a symbolic link
 * is followed only when it stays inside the skills folder, and a file counts for a skill only when it
 * lies inside that skill's folder. A skill that breaks a rule (frontmatter, name, limits) throws an
 * InvalidDefinitionError naming it.
 */
export async function readSkillFolder(folder: string): Promise<FolderSkill[]> {
  let root: string;
  try {
    root = await fs.realpath(folder);
    if (!(await fs.stat(root)).isDirectory()) throw new Error('not a folder');
  } catch (error) {
    throw new InvalidDefinitionError(`Skills folder "${folder}"`, `cannot be read (${(error as Error).message})`);
  }
  const files = await walk(root);
  if (files.some((f) => f.path === 'SKILL.md'))
    throw new InvalidDefinitionError(`Skills folder "${folder}"`, 'has a SKILL.md of its own: put each skill in a folder named after it');
  const skillPaths = files.filter((f) => f.path.endsWith('/SKILL.md')).map((f) => f.path.slice(0, -'/SKILL.md'.length));
  const digests = new Map<string, Promise<string>>();
  const digestOf = (absolute: string) => {
    let digest = digests.get(absolute);
    if (!digest) digests.set(absolute, (digest = sha256(absolute)));
    return digest;
  };
  const skills = await Promise.all(skillPaths.sort().map((skillPath) => readSkill(folder, root, skillPath, files, digestOf)));
  return skills;
}

async function readSkill(
  folder: string,
  root: string,
  skillPath: string,
  all: readonly Found[],
  digestOf: (absolute: string) => Promise<string>,
): Promise<FolderSkill> {
  const what = `Skill "${skillPath}" (${join(folder, ...skillPath.split('/'))})`;
  const skillFolder = join(root, ...skillPath.split('/'));
  const mine = all.filter((f) => f.path.startsWith(`${skillPath}/`) && inside(skillFolder, f.absolute));
  const problem = limitProblem(
    mine.length,
    mine.reduce((sum, f) => sum + f.size, 0),
  );
  if (problem) throw new InvalidDefinitionError(what, problem);
  let frontmatter: SkillFrontmatter;
  try {
    frontmatter = parseFrontmatter(await fs.readFile(join(skillFolder, 'SKILL.md'), 'utf8'));
  } catch (error) {
    throw new InvalidDefinitionError(what, (error as Error).message);
  }
  const last = skillPath.slice(skillPath.lastIndexOf('/') + 1);
  if (frontmatter.name !== last)
    throw new InvalidDefinitionError(what, `its name "${frontmatter.name}" must equal its folder's name "${last}"`);
  const files = await Promise.all(
    mine.map(async (f) => ({
      path: f.path.slice(skillPath.length + 1),
      absolute: f.absolute,
      size: f.size,
      digest: await digestOf(f.absolute),
    })),
  );
  files.sort((a, b) => (a.path === 'SKILL.md' ? -1 : b.path === 'SKILL.md' ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { skillPath, folder: skillFolder, frontmatter, files };
}

/** Every file under `root` (see readSkillFolder for what is skipped), each folder visited once. */
async function walk(root: string): Promise<Found[]> {
  const found: Found[] = [];
  const visited = new Set<string>([root]);
  const visit = async (dir: string, prefix: string): Promise<void> => {
    const entries: Dirent[] = await fs.readdir(dir, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      let absolute = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        absolute = await fs.realpath(absolute).catch(() => '');
        // A link that is broken or leaves the skills folder serves nothing.
        if (!absolute || !inside(root, absolute)) continue;
      }
      const stat = await fs.stat(absolute);
      if (stat.isDirectory()) {
        if (visited.has(absolute)) continue;
        visited.add(absolute);
        await visit(absolute, path);
      } else if (stat.isFile()) {
        found.push({ path, absolute, size: stat.size });
      }
    }
  };
  await visit(root, '');
  return found;
}

/** True when `path` is `folder` or lies under it. */
export function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

async function sha256(absolute: string): Promise<string> {
  return `sha256:${createHash('sha256')
    .update(await fs.readFile(absolute))
    .digest('hex')}`;
}
