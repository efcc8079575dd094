export { metadataStore } from './metadata-store';
export type {
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
  ServerInfo,
  StaticResourceOptions,
  TemplateResourceOptions,
  ToolOptions,
} from './records';
