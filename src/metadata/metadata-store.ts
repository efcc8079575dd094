import type { ClassSchemaOptions, CompleteOptions, FieldOptions, FieldRecord, MethodRecord, ModuleOptions, PromptOptions, ResourceOptions, ToolOptions } from './records';

/**
 * What the decorators saw, keyed by class. Decorators only append records here; everything derived
 * from them is built later, per application, by the registry builder. A WeakMap keeps classes
 * collectable and works before reflect-metadata is loaded.
 */
interface ClassRecords {
  tools: MethodRecord<ToolOptions>[];
  resources: MethodRecord<ResourceOptions>[];
  prompts: MethodRecord<PromptOptions>[];
  completes: MethodRecord<CompleteOptions>[];
  fields: FieldRecord[];
  module?: ModuleOptions;
  schema?: ClassSchemaOptions;
}

const records = new WeakMap<object, ClassRecords>();

function own(target: object): ClassRecords {
  let r = records.get(target);
  if (!r) {
    r = { tools: [], resources: [], prompts: [], completes: [], fields: [] };
    records.set(target, r);
  }
  return r;
}

export const metadataStore = {
  addTool(target: object, record: MethodRecord<ToolOptions>): void {
    own(target).tools.push(record);
  },
  addResource(target: object, record: MethodRecord<ResourceOptions>): void {
    own(target).resources.push(record);
  },
  addPrompt(target: object, record: MethodRecord<PromptOptions>): void {
    own(target).prompts.push(record);
  },
  addComplete(target: object, record: MethodRecord<CompleteOptions>): void {
    own(target).completes.push(record);
  },
  addField(target: object, property: string, options: FieldOptions): void {
    own(target).fields.push({ property, options });
  },
  setModule(target: object, options: ModuleOptions): void {
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
    for (let c: object | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
      const r = records.get(c);
      if (r) chain.unshift(r);
    }
    return {
      tools: chain.flatMap((r) => r.tools),
      resources: chain.flatMap((r) => r.resources),
      prompts: chain.flatMap((r) => r.prompts),
      completes: chain.flatMap((r) => r.completes),
      fields: chain.flatMap((r) => r.fields),
    };
  },

  module(target: object): ModuleOptions | undefined {
    return records.get(target)?.module;
  },
};
