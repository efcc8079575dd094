import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import type { SkillOptions } from '../metadata/records';
import { describeMember, rejectStandardDecorator, requireMethodName } from './describe-target';

/**
 * Serves a skill (the `io.modelcontextprotocol/skills` extension) whose SKILL.md the method writes:
 * called with the request's context at each read, it returns the markdown after the frontmatter (from
 * `options`). Generated, the skill is listed with `resources: "dynamic"`. Access decorators apply to it
 * as to a resource.
 */
export function Skill(options: SkillOptions): MethodDecorator {
  return (target, member) => {
    rejectStandardDecorator('Skill', member);
    const method = requireMethodName('Skill', target, member);
    for (const key of ['name', 'description'] as const) {
      if (typeof options?.[key] !== 'string' || options[key] === '')
        throw new InvalidDecoratorOptionsError('Skill', describeMember(target, member), `${key} must be a non-empty string`);
    }
    metadataStore.addSkill(target.constructor, { method, options: { ...options } });
  };
}
