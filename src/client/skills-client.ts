import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { readFrontmatter } from '../skills/skill-rules';
import { DIRECTORY_READ, type SkillEntry, type SkillResource, SKILLS_EXTENSION, SKILLS_GET, SKILLS_LIST } from '../skills/skill.types';
import type { McpClient } from './mcp-client';
import type { RequestOptions } from './outbound-requests';

/** Why a skill file failed verification against its entry. */
export type SkillVerificationReason = 'unlisted' | 'size' | 'digest' | 'frontmatter';

/** A file of a skill did not match the entry it was read under: the host must not use it. */
export class SkillVerificationError extends Error {
  constructor(
    readonly reason: SkillVerificationReason,
    /** The file. */
    readonly uri: string,
    message: string,
  ) {
    super(message);
    this.name = 'SkillVerificationError';
  }
}

/** A file of a skill as read and checked. */
export interface SkillFile {
  readonly uri: string;
  readonly mimeType?: string;
  /** The file's bytes (those its digest covers). */
  readonly bytes: Uint8Array;
  /** The text, when the server sent text. */
  readonly text?: string;
  /** Size and digest checked against the entry; false for a "dynamic" skill, which publishes none. */
  readonly verified: boolean;
  /** The skill's own SKILL.md only: its frontmatter (equal to the entry's) and the markdown after it. */
  readonly frontmatter?: Record<string, unknown>;
  readonly body?: string;
}

/**
 * The host side of the Skills extension (SEP-2640) over an McpClient: lists and gets skills, reads their
 * files verified against the entry's digests and sizes (and a SKILL.md's frontmatter against the
 * entry's), and reads directories. Approval and loading policy stay with the host.
 */
export class SkillsClient {
  constructor(private readonly client: McpClient) {}

  /** The connected server declares the extension. */
  get supported(): boolean {
    return this.settings !== undefined;
  }

  /** The server serves resources/directory/read. */
  get directoryRead(): boolean {
    return this.settings?.directoryRead === true;
  }

  /** Every skill the server lists (all pages). */
  list(options?: RequestOptions): Promise<SkillEntry[]> {
    return this.client.listAll<SkillEntry>(SKILLS_LIST, 'skills', {}, options);
  }

  /** One skill by the URI of its SKILL.md, listed or not. */
  async get(uri: string, options?: RequestOptions): Promise<SkillEntry> {
    const { skill } = await this.client.request<{ skill: SkillEntry }>(SKILLS_GET, { uri }, options);
    if (skill?.uri !== uri) throw new Error(`skills/get for ${uri} answered with another skill (${String(skill?.uri)})`);
    return skill;
  }

  /**
   * Reads a file of `skill` and verifies it: `ref` is a path in the skill (`references/GUIDE.md`) or a
   * URI, by default the SKILL.md. Throws SkillVerificationError naming the file when it is not listed,
   * or its size, digest or (SKILL.md) frontmatter differs from the entry.
   */
  async read(skill: SkillEntry, ref = 'SKILL.md', options?: RequestOptions): Promise<SkillFile> {
    const uri = resolveRef(skill.uri, ref);
    const listed: SkillResource | undefined = Array.isArray(skill.resources) ? skill.resources.find((r) => r.uri === uri) : undefined;
    if (Array.isArray(skill.resources) && !listed)
      throw new SkillVerificationError('unlisted', uri, `${uri} is not a file of ${skill.uri}`);
    const { contents } = await this.client.request<{ contents: { uri: string; mimeType?: string; text?: string; blob?: string }[] }>(
      'resources/read',
      { uri },
      options,
    );
    const content = contents?.[0];
    if (!content) throw new Error(`resources/read of ${uri} answered no contents`);
    const bytes = content.blob !== undefined ? Buffer.from(content.blob, 'base64') : Buffer.from(content.text ?? '', 'utf8');
    if (listed) {
      if (bytes.length !== listed.size)
        throw new SkillVerificationError('size', uri, `${uri} has ${bytes.length} bytes, its entry says ${listed.size}`);
      const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      if (digest !== listed.digest) throw new SkillVerificationError('digest', uri, `${uri} does not match its digest ${listed.digest}`);
    }
    const file = { uri, mimeType: content.mimeType, bytes, text: content.text, verified: listed !== undefined };
    if (uri !== skill.uri) return file;
    const parsed = readFrontmatter(bytes.toString('utf8'));
    if (!parsed || !isDeepStrictEqual(parsed.frontmatter, skill.frontmatter))
      throw new SkillVerificationError('frontmatter', uri, `the frontmatter of ${uri} differs from its entry's`);
    return { ...file, frontmatter: skill.frontmatter, body: parsed.body };
  }

  /** The direct children of a directory resource (all pages): files, and folders as `inode/directory`. */
  readDirectory(uri: string, options?: RequestOptions): Promise<{ uri: string; name: string; mimeType?: string; size?: number }[]> {
    return this.client.listAll(DIRECTORY_READ, 'resources', { uri }, options);
  }

  private get settings(): Record<string, unknown> | undefined {
    const extensions = this.client.serverCapabilities?.extensions as Record<string, Record<string, unknown>> | undefined;
    return extensions?.[SKILLS_EXTENSION];
  }
}

/** The URI of `ref` in the skill whose SKILL.md is `skillUri`: a URI as it is, a path resolved against the skill's folder. */
function resolveRef(skillUri: string, ref: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return ref;
  const root = skillUri.slice(0, skillUri.lastIndexOf('/'));
  const segments: string[] = [];
  for (const segment of ref.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) throw new SkillVerificationError('unlisted', ref, `${ref} leaves the folder of ${skillUri}`);
      segments.pop();
    } else segments.push(encodeURIComponent(decoded(segment)));
  }
  return `${root}/${segments.join('/')}`;
}

/** A segment as its characters (`my%20file.md` is `my file.md`), so that either spelling finds the entry's. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
