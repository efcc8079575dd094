/** The Skills extension (SEP-2640): its identifier, methods and limits, and the shapes of its results. */

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
export const SKILLS_LIST = 'skills/list';
export const SKILLS_GET = 'skills/get';
export const DIRECTORY_READ = 'resources/directory/read';
/** The MIME type of a directory resource (a skill's root and its subfolders). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** What every conforming host accepts of one skill: its files, and their total size in bytes. */
export const SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;

/** The frontmatter of a SKILL.md, as the author wrote it (`name` and `description` always present). */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [field: string]: unknown;
}

/** A file of a skill, with the digest (`sha256:<hex>`) and size of its bytes. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A skill as `skills/list` and `skills/get` describe it (the extension's `Skill`). */
export interface SkillEntry {
  /** The URI of its SKILL.md. */
  uri: string;
  frontmatter: SkillFrontmatter;
  /** Every file of the skill, or "dynamic" when its content is generated (no stable digests). */
  resources: SkillResource[] | 'dynamic';
}
