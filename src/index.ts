/**
 * `mcpkit`: what a server author writes against. The other audiences have their own entry points:
 * `mcpkit/auth` (token verifiers, the OAuth proxy), `mcpkit/client` (the MCP client and its
 * transports), `mcpkit/stores` (the task, event and session store contracts and the in-memory
 * stores), `mcpkit/redis`, `mcpkit/testing` and `mcpkit/console-to-stderr`. Every name is listed:
 * test/unit/architecture/public-api.spec.ts fails on one added or removed by accident.
 *
 * @module mcpkit
 */
import 'reflect-metadata';

export {
  Tool,
  Tags,
  Resource,
  Prompt,
  Skill,
  Complete,
  Field,
  McpHeader,
  JsonSchema,
  RequireScopes,
  Public,
  UseGuards,
  UseMiddleware,
  View,
  RateLimit,
  Idempotent,
  Cache,
  Timeout,
  Concurrency,
} from './decorators';
export { IDEMPOTENCY_KEY_META } from './contracts/policies';
export type {
  CacheOptions,
  ConcurrencyOptions,
  HandlerPolicies,
  IdempotencyOptions,
  PolicyKey,
  RateLimitOptions,
  StoreFailure,
} from './contracts/policies';
export type { PolicyOptions } from './policies/policy-options';
export type { DefaultPolicies } from './policies/call-policies';
export { RateLimitedError } from './mcp/rate-limited.error';
export type { RateLimitedData } from './mcp/rate-limited.error';
export type {
  ClassSchemaOptions,
  ClassType,
  CompleteOptions,
  FieldOptions,
  PromptOptions,
  Provider,
  ProviderToken,
  ResourceOptions,
  SkillOptions,
  StaticResourceOptions,
  TemplateResourceOptions,
  ToolOptions,
} from './metadata';
export { UI_EXTENSION, VIEW_MIME_TYPE } from './views/view.types';
export type { ViewOptions, ViewCsp, ViewPermissions, ViewHtml, ToolUi, ToolVisibility, ViewsOptions } from './views/view.types';
export {
  McpDefinitionError,
  InvalidDecoratorOptionsError,
  DuplicateToolNameError,
  DuplicatePromptNameError,
  DuplicateResourceError,
  ClashingUriTemplateError,
  InvalidUriTemplateError,
  UnknownCompletionTargetError,
  MissingInputMetadataError,
  ReflectMetadataMissingError,
  MissingDesignMetadataError,
  StandardDecoratorsError,
  InvalidModuleError,
  InvalidHandlerSignatureError,
  MissingNestedTypeError,
  UnresolvableProviderError,
  DuplicatePeerPackageError,
  AddressInUseError,
  InvalidViewError,
  UnknownViewError,
  MissingTextFallbackError,
  InvalidExtensionError,
  InvalidDefinitionError,
} from './errors';

export { McpApplication } from './kernel/mcp-application';
export { McpModule } from './kernel/mcp-module.decorator';
export type { ModuleOptions } from './kernel/module-options';
export type { ApplicationOptions, ServerInfo } from './kernel/application-options';
export type { ConnectOptions, ConnectionHandle } from './kernel/listen-options';
export type { FrontDoor } from './kernel/serving';
export type { TaskOptions } from './tasks/task-options';
export type { TelemetryOptions } from './observability/telemetry-options';
export type { CustomMethodHandler, CustomMethodOptions } from './protocol/custom-methods';
export type {
  DynamicTool,
  DynamicResource,
  DynamicStaticResource,
  DynamicResourceTemplate,
  DynamicPrompt,
  DynamicCompleter,
  DynamicAccess,
} from './registry/dynamic-definitions';
export type { PrimitiveKind } from './registry/registry';
export { SKILLS_EXTENSION } from './skills/skill.types';
export type { SkillEntry, SkillFrontmatter, SkillResource } from './skills/skill.types';
export type { SkillContent, SkillDefinition, SkillFolderOptions, SkillsOptions } from './skills/skill-catalog';

// app.connect(transport) serves any MessageTransport: a transport of your own (a WebSocket, an IPC
// channel) decodes what it reads with decodeMessage and writes what encodeMessage makes.
export type { MessageTransport, InboundSink } from './transports/message-transport';
export { decodeMessage, encodeMessage } from './protocol/wire';
export type { DecodeResult } from './protocol/wire';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId } from './mcp/json-rpc';

export { McpContext, CompletionContext } from './context/mcp-context';
export type {
  SessionInfo,
  AuthInfo,
  McpLogger,
  ElicitFormRequest,
  ElicitFormResult,
  ElicitUrlRequest,
  ClientRequestOptions,
} from './context/mcp-context';
export { text, image, audio, resourceLink, embeddedResource, userMessage, assistantMessage } from './content/content.helpers';
export { ToolError } from './content/tool.error';
export { McpError, mcpErrorOf } from './mcp/mcp.error';
export type { McpErrorMapping } from './mcp/mcp.error';
export { ErrorCode } from './mcp/json-rpc';
export { ForbiddenError, FORBIDDEN_CODE } from './auth/auth.errors';
export type { ForbiddenOptions, RemediationHint } from './auth/auth.errors';
export { InputRequiredError, isInputRequired } from './protocol/per-request/input-round';
export { EmptyInput } from './schema/empty-input';
export type { CanActivate, GuardContext, GuardClass } from './contracts/guard';
export type { Middleware, Invocation } from './contracts/middleware';

export { StderrLogger } from './kernel/server-logger';
export type { LogFields, LogLevel, ServerLogger, StderrLoggerOptions } from './kernel/server-logger';
export { pinoLogger } from './kernel/pino-logger';
export type { PinoLike } from './kernel/pino-logger';
export { redirectConsoleToStderr } from './kernel/console-redirect';
export { MCP_APPLICATION, MCP_LOGGER, MCP_OPTIONS, TASK_STORE } from './kernel/tokens';

export { PER_REQUEST_PROTOCOL_VERSIONS, TASKS_EXTENSION } from './mcp/eras';
export type { Era, EraSupport } from './mcp/eras';
export type { Extensions, ExtensionSettings } from './mcp/extensions';
export type { CacheHint, CacheHints } from './contracts/cache-hints';
export type { RequestStateOptions } from './protocol/per-request/request-state';

// The MCP types a handler returns, receives from the client, or names in its options.
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  EmbeddedResource,
  GetPromptResult,
  Icon,
  ImageContent,
  Implementation,
  JsonSchemaObject,
  LoggingLevel,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
  ResourceLink,
  Role,
  Root,
  SamplingMessage,
  ServerCapabilities,
  TaskSupport,
  TextContent,
  TextResourceContents,
  ToolAnnotations,
} from './mcp/mcp-types';
export type { ToolSearchOptions } from './protocol/handlers/tool-search';
export {
  bm25Ranker,
  type Bm25RankerOptions,
  InvalidSearchPatternError,
  type RankedTool,
  type RankOptions,
  regexRanker,
  type RegexRankerOptions,
  type SearchableTool,
  type ToolDocument,
  type ToolParameterText,
  type ToolRanker,
  type ToolRankerFactory,
} from './search';
