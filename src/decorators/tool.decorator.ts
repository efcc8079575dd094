import { InvalidDecoratorOptionsError } from '../errors/invalid-decorator-options.error';
import { metadataStore } from '../metadata/metadata-store';
import type { ToolOptions } from '../metadata/records';
import { validTags } from '../metadata/tool-tags';
import { describeMember, requireMethodName, rejectStandardDecorator } from './describe-target';

const TASK_SUPPORT = ['forbidden', 'optional', 'required'];

/** Exposes a method as an MCP tool. The method receives the validated input and an `McpContext`. */
export function Tool(options: ToolOptions = {}): MethodDecorator {
  return (target, member) => {
    rejectStandardDecorator('Tool', member);
    const method = requireMethodName('Tool', target, member);
    if (options.name !== undefined && (typeof options.name !== 'string' || options.name.length === 0)) {
      throw new InvalidDecoratorOptionsError('Tool', describeMember(target, member), 'name must be a non-empty string');
    }
    if (options.taskSupport !== undefined && !TASK_SUPPORT.includes(options.taskSupport)) {
      throw new InvalidDecoratorOptionsError(
        'Tool',
        describeMember(target, member),
        `taskSupport must be one of ${TASK_SUPPORT.join(', ')}`,
      );
    }
    if (options.tags !== undefined && !validTags(options.tags))
      throw new InvalidDecoratorOptionsError('Tool', describeMember(target, member), 'tags must be an array of non-empty strings');
    metadataStore.addTool(target.constructor, { method, options: { ...options } });
  };
}
