export { metadataStore } from './metadata-store';
export type {
  ClassSchemaOptions,
  ClassType,
  CompleteOptions,
  Constructor,
  FieldOptions,
  FieldRecord,
  MethodRecord,
  ModuleOptions,
  PromptOptions,
  Provider,
  ProviderLifecycle,
  ProviderToken,
  ResourceOptions,
  StaticResourceOptions,
  TemplateResourceOptions,
  ToolOptions,
} from './records';
