import type {
  AccessRecord,
  ClassAccessRecords,
  ClassSchemaOptions,
  CompleteOptions,
  FieldOptions,
  FieldRecord,
  MethodRecord,
  ModuleRecord,
  PromptOptions,
  ResourceOptions,
  SkillOptions,
  ToolOptions,
} from './records';

/**
 * What the decorators saw, keyed by class. Decorators only append records here; everything derived
 * from them is built later, per application, by the registry builder. A WeakMap keeps classes
 * collectable and works before reflect-metadata is loaded.
 */
interface ClassRecords {
  tools: MethodRecord<ToolOptions>[];
  resources: MethodRecord<ResourceOptions>[];
  prompts: MethodRecord<PromptOptions>[];
  skills: MethodRecord<SkillOptions>[];
  completes: MethodRecord<CompleteOptions>[];
  fields: FieldRecord[];
  access?: { type: AccessRecord[]; methods: Map<string, AccessRecord[]> };
  module?: ModuleRecord;
  schema?: ClassSchemaOptions;
  /** `@Tags` on the class: the tags of each of its tools. */
  tags?: string[];
}

const records = new WeakMap<object, ClassRecords>();
/**
 * Classes with handler decorators and module classes, in declaration order, so that bootstrap can
 * spot a decorated class that no module lists. Classes are module-level values that live as long as
 * the process anyway, so holding them costs nothing.
 */
const handlerClasses = new Set<object>();
const moduleClasses = new Set<object>();

function own(target: object): ClassRecords {
  let r = records.get(target);
  if (!r) {
    r = { tools: [], resources: [], prompts: [], skills: [], completes: [], fields: [] };
    records.set(target, r);
  }
  return r;
}

export const metadataStore = {
  addTool(target: object, record: MethodRecord<ToolOptions>): void {
    handlerClasses.add(target);
    own(target).tools.push(record);
  },
  addResource(target: object, record: MethodRecord<ResourceOptions>): void {
    handlerClasses.add(target);
    own(target).resources.push(record);
  },
  addPrompt(target: object, record: MethodRecord<PromptOptions>): void {
    handlerClasses.add(target);
    own(target).prompts.push(record);
  },
  addSkill(target: object, record: MethodRecord<SkillOptions>): void {
    handlerClasses.add(target);
    own(target).skills.push(record);
  },
  addComplete(target: object, record: MethodRecord<CompleteOptions>): void {
    handlerClasses.add(target);
    own(target).completes.push(record);
  },
  addField(target: object, property: string, options: FieldOptions): void {
    own(target).fields.push({ property, options });
  },
  /**
   * Records an access decorator on a class (`method` undefined) or a method. Decorators apply bottom-up,
   * so each record goes first: the list reads in source order.
   */
  addAccess(target: object, method: string | undefined, record: AccessRecord): void {
    const r = own(target);
    const access = (r.access ??= { type: [] as AccessRecord[], methods: new Map<string, AccessRecord[]>() });
    if (method === undefined) access.type.unshift(record);
    else {
      const list: AccessRecord[] = access.methods.get(method) ?? [];
      list.unshift(record);
      access.methods.set(method, list);
    }
  },
  /** The access records of a class and its ancestors, ancestors first. */
  access(target: object): ClassAccessRecords {
    const type: AccessRecord[] = [];
    const methods = new Map<string, AccessRecord[]>();
    const chain: object[] = [];
    for (let c: object | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as object | null) chain.unshift(c);
    for (const c of chain) {
      const access = records.get(c)?.access;
      if (!access) continue;
      type.push(...access.type);
      for (const [method, list] of access.methods) methods.set(method, [...(methods.get(method) ?? []), ...list]);
    }
    return { type, methods };
  },
  /** Records `@Tags` on a class. */
  addTags(target: object, tags: readonly string[]): void {
    const r = own(target);
    r.tags = [...(r.tags ?? []), ...tags];
  },
  /** The tags `@Tags` gave a class and its ancestors, ancestors first. */
  tags(target: object): string[] {
    const tags: string[] = [];
    for (let c: object | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as object | null)
      tags.unshift(...(records.get(c)?.tags ?? []));
    return tags;
  },
  setModule(target: object, options: ModuleRecord): void {
    moduleClasses.add(target);
    own(target).module = options;
  },
  setSchema(target: object, options: ClassSchemaOptions): void {
    own(target).schema = options;
  },
  schema(target: object): ClassSchemaOptions | undefined {
    return records.get(target)?.schema;
  },

  /** The records of a class and its ancestors, ancestors first. */
  collect(target: object): Omit<ClassRecords, 'module' | 'schema'> {
    const chain: ClassRecords[] = [];
    for (let c: object | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as object | null) {
      const r = records.get(c);
      if (r) chain.unshift(r);
    }
    return {
      tools: chain.flatMap((r) => r.tools),
      resources: chain.flatMap((r) => r.resources),
      prompts: chain.flatMap((r) => r.prompts),
      skills: chain.flatMap((r) => r.skills),
      completes: chain.flatMap((r) => r.completes),
      fields: chain.flatMap((r) => r.fields),
    };
  },

  module(target: object): ModuleRecord | undefined {
    return records.get(target)?.module;
  },

  /** Every class that has `@Tool`, `@Resource`, `@Prompt` or `@Complete` methods of its own. */
  handlerClasses(): readonly object[] {
    return [...handlerClasses];
  },

  /** Every class decorated with `@McpModule`. */
  moduleClasses(): readonly object[] {
    return [...moduleClasses];
  },
};
