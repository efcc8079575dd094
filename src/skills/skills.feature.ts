import type { CacheHint } from '../contracts/cache-hints';
import { McpError } from '../mcp/mcp.error';
import { type Authorizer, type Caller, callerOf } from '../protocol/authorizer';
import { requireString } from '../protocol/handlers/handler-env';
import { ListViews } from '../protocol/list-views';
import { Paginator } from '../protocol/pagination';
import type { ProtocolFeature } from '../protocol/protocol-feature';
import type { MethodHandler, RequestScope } from '../protocol/request-scope';
import type { ResourceDefinition } from '../mcp/mcp-types';
import type { ServedSkill, SkillCatalog } from './skill-catalog';
import { DIRECTORY_READ, type SkillEntry, SKILLS_EXTENSION, SKILLS_GET, SKILLS_LIST } from './skill.types';

export interface SkillsFeatureOptions {
  readonly pageSize: number;
  readonly authorizer: Authorizer;
  /** `ttlMs` and `cacheScope` of skills/list and skills/get (per-request era results, where they are required). */
  readonly cache?: CacheHint;
}

/**
 * The Skills extension (SEP-2640) as a protocol feature, in both eras: skills/list, skills/get and
 * resources/directory/read over the catalog, advertised under `capabilities.extensions` (with the resources
 * capability) once skills are configured or added, even while none is left. A caller sees and gets
 * the skills whose SKILL.md it may read, as for any resource.
 */
export function skillsFeature(catalog: SkillCatalog, options: SkillsFeatureOptions): ProtocolFeature {
  const { authorizer } = options;
  const version = () => catalog.version;
  const pages = new Paginator<SkillEntry>('skills', 'skills', () => catalog.skills().map((s) => s.entry), options.pageSize, version);
  const views = new ListViews(authorizer, () => catalog.skills().map((s) => ({ ...s.skillMd, definition: s.entry })), version);
  const directoryPages = new Paginator<ResourceDefinition>('directory', 'resources', () => [], options.pageSize);
  const cacheHint = (scope: RequestScope) => scope.setCacheHint?.(options.cache ?? { ttlMs: 0 });
  const directoryRead = catalog.options.directoryRead !== false;

  const methods: Record<string, MethodHandler> = {
    [SKILLS_LIST]: async (params, scope) => {
      cacheHint(scope);
      return pages.page(params.cursor, await views.view(callerOf(scope.extra)));
    },
    [SKILLS_GET]: async (params, scope) => {
      const uri = requireString(params, 'uri');
      const skill = catalog.skill(uri);
      if (!skill) throw McpError.invalidParams(`No skill is served at ${uri}`, { uri });
      await authorizer.assert(skill.skillMd, callerOf(scope.extra));
      cacheHint(scope);
      return { skill: skill.entry };
    },
  };
  if (directoryRead) {
    methods[DIRECTORY_READ] = async (params, scope) => {
      const uri = requireString(params, 'uri');
      const children = catalog.directory(uri);
      const visible = children && (await visibleChildren([...children.values()], callerOf(scope.extra), authorizer));
      // A folder whose skills the caller may not see is, to that caller, no folder at all.
      if (!visible || (visible.length === 0 && children.size > 0))
        throw McpError.invalidParams(`${uri} is not a directory resource`, { uri });
      // Not required by the extension, but the SDK's 2026-07-28 client expects them of every listing.
      cacheHint(scope);
      return directoryPages.page(params.cursor, { items: () => visible });
    };
  }
  return {
    // A skill's files are resources: the extension requires the resources capability, offered while skills are served.
    capability: 'resources',
    capabilityFor: () => (catalog.configured ? { subscribe: true, listChanged: true } : undefined),
    ownExtensions: [SKILLS_EXTENSION],
    extensionsFor: () => (catalog.configured ? { [SKILLS_EXTENSION]: directoryRead ? { directoryRead: true } : {} } : undefined),
    eras: { handshake: { methods }, 'per-request': { methods } },
  };
}

/** The children the caller may see: those holding a file of a skill whose SKILL.md it may read. */
async function visibleChildren(
  children: { definition: ResourceDefinition; skills: Set<ServedSkill> }[],
  caller: Caller,
  authorizer: Authorizer,
): Promise<ResourceDefinition[]> {
  const decided = new Map<ServedSkill, Promise<boolean>>();
  const allowed = (skill: ServedSkill) => {
    let answer = decided.get(skill);
    if (!answer) decided.set(skill, (answer = authorizer.allows(skill.skillMd, caller)));
    return answer;
  };
  const shown = await Promise.all(children.map(async (child) => (await Promise.all([...child.skills].map(allowed))).some(Boolean)));
  return children.filter((_, i) => shown[i]).map((c) => c.definition);
}
