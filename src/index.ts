import 'reflect-metadata';

export { Tool, Resource, Prompt, Complete, Field, McpHeader, McpModule, JsonSchema, RequireScopes, Public, UseGuards, UseMiddleware, View } from './decorators';
export { UI_EXTENSION, VIEW_MIME_TYPE } from './views/view.types';
export type { ViewOptions, ViewCsp, ViewPermissions, ViewHtml, ToolUi, ToolVisibility, ViewsOptions } from './views/view.types';
export type { ClassOrMethodDecorator } from './decorators';
export type {
  ClassSchemaOptions,
  ClassType,
  CompleteOptions,
  FieldOptions,
  ModuleOptions,
  PromptOptions,
  Provider,
  ProviderLifecycle,
  ProviderToken,
  ResourceOptions,
  StaticResourceOptions,
  TemplateResourceOptions,
  ToolOptions,
} from './metadata';
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
export type { DynamicTool, DynamicResource, DynamicStaticResource, DynamicResourceTemplate, DynamicPrompt, DynamicCompleter, DynamicAccess } from './registry/dynamic-definitions';
export type { ListenOptions, ListenResult, ConnectOptions, ConnectionHandle } from './kernel/listen-options';
export type { ApplicationOptions, ServerInfo } from './kernel/application-options';
export type { TelemetryOptions } from './protocol/telemetry/telemetry-options';
export type { Middleware, Invocation } from './contracts/middleware';
export type { LogFields, LogLevel, ServerLogger, StderrLoggerOptions } from './kernel/server-logger';
export { StderrLogger } from './kernel/server-logger';
export { pinoLogger } from './kernel/pino-logger';
export type { PinoLike } from './kernel/pino-logger';
export { redirectConsoleToStderr } from './kernel/console-redirect';
export { MCP_APPLICATION, MCP_LOGGER, MCP_OPTIONS } from './kernel/tokens';
export { McpContext, CompletionContext } from './context/mcp-context';
export type { SessionInfo, AuthInfo, McpLogger, ElicitFormRequest, ElicitFormResult, ElicitUrlRequest, ClientRequestOptions } from './context/mcp-context';
export { text, image, audio, resourceLink, embeddedResource, userMessage, assistantMessage } from './content/content.helpers';
export { ToolError } from './content/tool.error';
export { McpError, mcpErrorOf, type McpErrorMapping } from './mcp/mcp.error';
export { ErrorCode } from './mcp/json-rpc';
export type { JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId } from './mcp/json-rpc';
export * from './mcp/mcp-types';
export { EmptyInput } from './schema/empty-input';
export { JsonSchemaBuilder } from './schema/json-schema.builder';
export { UriTemplate } from './registry/uri-template';
export type { UriVariables } from './registry/uri-template';
export type { Registry, PrimitiveKind, ListKind, RegistryKinds } from './registry/registry';
export { elicitationSchema } from './schema/elicitation-schema.builder';
export type { MessageTransport, InboundSink } from './transports/message-transport';
export type { ClientTransport } from './transports/in-memory.transport';
export { StdioTransport } from './transports/stdio.transport';
export type { StdioOptions } from './transports/stdio.transport';
export { StreamableHttpTransport } from './transports/http/streamable-http';
export type { HttpMiddleware, RequestListener } from './transports/http/streamable-http';
export type { HttpOptions } from './transports/http/http-options';
export { UnauthorizedError } from './transports/http/unauthorized.error';
export { InMemoryEventStore } from './transports/http/event-store';
export type { InMemoryEventStoreOptions } from './transports/http/event-store';
export type { EventStore, StoredEvent } from './transports/http/event-store';
export { InMemoryTaskStore } from './tasks/in-memory.task-store';
export type { InMemoryTaskStoreOptions } from './tasks/in-memory.task-store';
export type { TaskStore, CreateTaskInput } from './tasks/task-store';
export { InvalidTaskTransitionError, InvalidTaskCursorError, TaskStoreError, TaskStoreFullError, StorageUnavailableError, toMcpError } from './tasks/task-store.errors';
export type { Task, TaskStatus, TaskRecord, TaskOutcome, TaskSegment, ResponseMode } from './tasks/task.types';
export { RELATED_TASK, MODEL_IMMEDIATE_RESPONSE, FALLBACK_MODE, isTerminal } from './tasks/task.types';
export type { TaskOptions } from './tasks/task-options';
export type { TaskStoreOption } from './kernel/application-options';
export { TASK_STORE } from './kernel/tokens';
export type { SessionBackplane, SessionEnvelope, SharedSessionState } from './transports/http/session-backplane';
export type { ScaleOut, ScaleOutFactory, ScaleOutEnvironment } from './kernel/scale-out';
export type { TaskBus, TaskBusMessage } from './tasks/task-bus';
export type { TokenVerifier, VerifyContext } from './auth/token-verifier';
export type { CanActivate, GuardContext, GuardClass } from './contracts/guard';
export { InvalidTokenError, ForbiddenError, FORBIDDEN_CODE, AuthorizationServerError } from './auth/auth.errors';
export { OAuthProxy, InMemoryOAuthProxyStore, OAuthError } from './auth/oauth-proxy';
export type { OAuthProxyOptions, UpstreamProviderOptions, UpstreamTokens, UpstreamIdentity, SigningJwk, OAuthProxyStore, InMemoryOAuthProxyStoreOptions } from './auth/oauth-proxy';
export type { ResourceServerOptions, StdioAuthOptions } from './auth/resource-server-options';
export { AuthConfigurationError } from './auth/auth-configuration.error';
export { JwtVerifier, DEFAULT_JWT_ALGORITHMS } from './auth/jwt.verifier';
export type { JwtVerifierOptions } from './auth/jwt.verifier';
export { IntrospectionVerifier } from './auth/introspection.verifier';
export type { IntrospectionVerifierOptions } from './auth/introspection.verifier';
export { StaticTokenVerifier } from './auth/static-token.verifier';
export { InputRequiredError, isInputRequired } from './protocol/modern/input-round';
export type { Era, EraSupport } from './mcp/eras';
export { MODERN_PROTOCOL_VERSIONS, MetaKey, ModernErrorCode, TASKS_EXTENSION } from './mcp/eras';
export type { Extensions, ExtensionSettings } from './mcp/extensions';
export type { CacheHint, CacheHints } from './contracts/cache-hints';
export type { RequestStateOptions } from './protocol/modern/request-state';
export { McpClient } from './client/mcp-client';
export type { McpClientOptions, NotificationHandler, InitializeResult } from './client/mcp-client';
export type { ClientEra, ServerDescription } from './client/modern-session';
export type { ProxyOptions } from './kernel/proxy';
export type { ProxyTransport } from './kernel/proxy-link';
export type { McpClientTransport, ClientMessage, MessageExtra, SendOptions } from './client/client-transport';
export { CLIENT_PROTOCOL_VERSIONS } from './client/client-transport';
export type { InboundRequestHandler, InboundRequestContext } from './client/inbound-requests';
export type { RequestOptions, Progress } from './client/outbound-requests';
export { REQUEST_TIMEOUT, CONNECTION_CLOSED } from './client/outbound-requests';
export { StdioClientTransport, stdioClientTransport } from './client/stdio-client.transport';
export type { StdioClientOptions } from './client/stdio-client.transport';
export { StreamableHttpClientTransport, streamableHttpClientTransport } from './client/streamable-http-client.transport';
export type { StreamableHttpClientOptions } from './client/streamable-http-client.transport';
export { SseClientTransport, sseClientTransport } from './client/sse-client.transport';
export type { SseClientOptions } from './client/sse-client.transport';
export type { CustomMethodHandler, CustomMethodOptions } from './protocol/custom-methods';
