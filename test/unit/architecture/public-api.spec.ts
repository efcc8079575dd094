import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { importEdges, sourceFiles } from './import-graph';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * What each entry point of the package exports, by name ('type X' for a name that exists only for
 * TypeScript). An export added or removed by accident fails here: change the list on purpose, and
 * the "Entry points" table of docs/guide/getting-started.md with it. Internals are not exported; tests import them from src/.
 */
const PUBLIC_API: Record<string, string[]> = {
  mcpkit: [
    'AddressInUseError',
    'type Annotations',
    'type ApplicationOptions',
    'type AudioContent',
    'type AuthInfo',
    'type BlobResourceContents',
    'type Bm25RankerOptions',
    'Cache',
    'type CacheHint',
    'type CacheHints',
    'type CacheOptions',
    'type CallToolResult',
    'type CanActivate',
    'ClashingUriTemplateError',
    'type ClassSchemaOptions',
    'type ClassType',
    'type ClientCapabilities',
    'type ClientRequestOptions',
    'Complete',
    'type CompleteOptions',
    'CompletionContext',
    'Concurrency',
    'type ConcurrencyOptions',
    'type ConnectOptions',
    'type ConnectionHandle',
    'type ContentBlock',
    'type CreateMessageParams',
    'type CreateMessageResult',
    'type CustomMethodHandler',
    'type CustomMethodOptions',
    'type DecodeResult',
    'type DefaultPolicies',
    'DuplicatePeerPackageError',
    'DuplicatePromptNameError',
    'DuplicateResourceError',
    'DuplicateToolNameError',
    'type DynamicAccess',
    'type DynamicCompleter',
    'type DynamicPrompt',
    'type DynamicResource',
    'type DynamicResourceTemplate',
    'type DynamicStaticResource',
    'type DynamicTool',
    'type ElicitFormRequest',
    'type ElicitFormResult',
    'type ElicitResult',
    'type ElicitUrlRequest',
    'type EmbeddedResource',
    'EmptyInput',
    'type Era',
    'type EraSupport',
    'ErrorCode',
    'type ExtensionSettings',
    'type Extensions',
    'FORBIDDEN_CODE',
    'Field',
    'type FieldOptions',
    'ForbiddenError',
    'type ForbiddenOptions',
    'type FrontDoor',
    'type GetPromptResult',
    'type GuardClass',
    'type GuardContext',
    'type HandlerPolicies',
    'IDEMPOTENCY_KEY_META',
    'type Icon',
    'type IdempotencyOptions',
    'Idempotent',
    'type ImageContent',
    'type Implementation',
    'type InboundSink',
    'InputRequiredError',
    'InvalidDecoratorOptionsError',
    'InvalidDefinitionError',
    'InvalidExtensionError',
    'InvalidHandlerSignatureError',
    'InvalidModuleError',
    'InvalidSearchPatternError',
    'InvalidUriTemplateError',
    'InvalidViewError',
    'type Invocation',
    'type JsonRpcMessage',
    'type JsonRpcNotification',
    'type JsonRpcRequest',
    'type JsonRpcResponse',
    'JsonSchema',
    'type JsonSchemaObject',
    'type LogFields',
    'type LogLevel',
    'type LoggingLevel',
    'MCP_APPLICATION',
    'MCP_LOGGER',
    'MCP_OPTIONS',
    'McpApplication',
    'McpContext',
    'McpDefinitionError',
    'McpError',
    'type McpErrorMapping',
    'McpHeader',
    'type McpLogger',
    'McpModule',
    'type MessageTransport',
    'type Middleware',
    'MissingDesignMetadataError',
    'MissingInputMetadataError',
    'MissingNestedTypeError',
    'MissingTextFallbackError',
    'type ModuleOptions',
    'PER_REQUEST_PROTOCOL_VERSIONS',
    'type PinoLike',
    'type PolicyKey',
    'type PolicyOptions',
    'type PrimitiveKind',
    'Prompt',
    'type PromptArgument',
    'type PromptMessage',
    'type PromptOptions',
    'type Provider',
    'type ProviderToken',
    'Public',
    'type RankOptions',
    'type RankedTool',
    'RateLimit',
    'type RateLimitOptions',
    'type RateLimitedData',
    'RateLimitedError',
    'type ReadResourceResult',
    'ReflectMetadataMissingError',
    'type RegexRankerOptions',
    'type RemediationHint',
    'type RequestId',
    'type RequestStateOptions',
    'RequireScopes',
    'Resource',
    'type ResourceContents',
    'type ResourceLink',
    'type ResourceOptions',
    'type Role',
    'type Root',
    'SKILLS_EXTENSION',
    'type SamplingMessage',
    'type SearchableTool',
    'type ServerCapabilities',
    'type ServerInfo',
    'type ServerLogger',
    'type SessionInfo',
    'Skill',
    'type SkillContent',
    'type SkillDefinition',
    'type SkillEntry',
    'type SkillFolderOptions',
    'type SkillFrontmatter',
    'type SkillOptions',
    'type SkillResource',
    'type SkillsOptions',
    'StandardDecoratorsError',
    'type StaticResourceOptions',
    'StderrLogger',
    'type StderrLoggerOptions',
    'type StoreFailure',
    'TASKS_EXTENSION',
    'TASK_STORE',
    'Tags',
    'type TaskOptions',
    'type TaskSupport',
    'type TelemetryOptions',
    'type TemplateResourceOptions',
    'type TextContent',
    'type TextResourceContents',
    'Timeout',
    'Tool',
    'type ToolAnnotations',
    'type ToolDocument',
    'ToolError',
    'type ToolOptions',
    'type ToolParameterText',
    'type ToolRanker',
    'type ToolRankerFactory',
    'type ToolSearchOptions',
    'type ToolUi',
    'type ToolVisibility',
    'UI_EXTENSION',
    'UnknownCompletionTargetError',
    'UnknownViewError',
    'UnresolvableProviderError',
    'UseGuards',
    'UseMiddleware',
    'VIEW_MIME_TYPE',
    'View',
    'type ViewCsp',
    'type ViewHtml',
    'type ViewOptions',
    'type ViewPermissions',
    'type ViewsOptions',
    'assistantMessage',
    'audio',
    'bm25Ranker',
    'decodeMessage',
    'embeddedResource',
    'encodeMessage',
    'image',
    'isInputRequired',
    'mcpErrorOf',
    'pinoLogger',
    'redirectConsoleToStderr',
    'regexRanker',
    'resourceLink',
    'text',
    'userMessage',
  ],
  'mcpkit/auth': [
    'AuthConfigurationError',
    'AuthorizationServerError',
    'DEFAULT_DPOP_ALGORITHMS',
    'DEFAULT_JWT_ALGORITHMS',
    'type DpopOptions',
    'type DpopStore',
    'type EnterpriseOptions',
    'InMemoryDpopStore',
    'type InMemoryDpopStoreOptions',
    'InMemoryOAuthProxyStore',
    'type InMemoryOAuthProxyStoreOptions',
    'IntrospectionVerifier',
    'type IntrospectionVerifierOptions',
    'InvalidTokenError',
    'JwtVerifier',
    'type JwtVerifierOptions',
    'OAuthError',
    'OAuthProxy',
    'type OAuthProxyOptions',
    'type OAuthProxyStore',
    'type ResourceServerOptions',
    'type SigningJwk',
    'StaticTokenVerifier',
    'type StdioAuthOptions',
    'type TokenVerifier',
    'type TrustedIdentityProvider',
    'UnauthorizedError',
    'type UpstreamIdentity',
    'type UpstreamProviderOptions',
    'type UpstreamTokens',
    'type VerifyContext',
  ],
  'mcpkit/client': [
    'CLIENT_PROTOCOL_VERSIONS',
    'CONNECTION_CLOSED',
    'type ClientEra',
    'type ClientMessage',
    'type InboundRequestContext',
    'type InboundRequestHandler',
    'type InitializeResult',
    'McpClient',
    'type McpClientOptions',
    'type McpClientTransport',
    'type MessageExtra',
    'type NotificationHandler',
    'type Progress',
    'REQUEST_TIMEOUT',
    'type RequestOptions',
    'type SendOptions',
    'type ServerDescription',
    'type SkillFile',
    'SkillVerificationError',
    'type SkillVerificationReason',
    'SkillsClient',
    'type SseClientOptions',
    'type SseClientTransport',
    'type StdioClientOptions',
    'type StdioClientTransport',
    'type StreamableHttpClientOptions',
    'type StreamableHttpClientTransport',
    'sseClientTransport',
    'stdioClientTransport',
    'streamableHttpClientTransport',
  ],
  'mcpkit/stores': [
    'type CacheLookup',
    'type CreateTaskInput',
    'type EventStore',
    'type IdempotencyClaim',
    'InMemoryEventStore',
    'type InMemoryEventStoreOptions',
    'InMemoryPolicyStore',
    'type InMemoryPolicyStoreOptions',
    'InMemoryTaskStore',
    'type InMemoryTaskStoreOptions',
    'InvalidTaskCursorError',
    'InvalidTaskTransitionError',
    'type PolicyStore',
    'type RateDecision',
    'type ScaleOutFactory',
    'type SessionBackplane',
    'type SessionEnvelope',
    'type SharedSessionState',
    'StorageUnavailableError',
    'type StoredEvent',
    'type Task',
    'type TaskOutcome',
    'type TaskRecord',
    'type TaskSegment',
    'type TaskStatus',
    'type TaskStore',
    'TaskStoreError',
    'TaskStoreFullError',
    'type TerminalStatus',
    'isTerminal',
  ],
  'mcpkit/redis': [
    'type RedisConnection',
    'RedisDpopStore',
    'type RedisDpopStoreOptions',
    'RedisEventStore',
    'type RedisEventStoreOptions',
    'RedisOAuthProxyStore',
    'type RedisOAuthProxyStoreOptions',
    'RedisPolicyStore',
    'type RedisPolicyStoreOptions',
    'type RedisScaleOutOptions',
    'RedisSessionBackplane',
    'type RedisSessionBackplaneOptions',
    'RedisTaskStore',
    'type RedisTaskStoreOptions',
    'redisScaleOut',
  ],
  'mcpkit/testing': [
    'type ClientRequestHandler',
    'type ClientTransport',
    'McpTestClient',
    'type PolicyStoreContractOptions',
    'type TaskStoreContractOptions',
    'type TestClientOptions',
    'type TestSuiteFunctions',
    'createInMemoryTransportPair',
    'describePolicyStoreContract',
    'describeTaskStoreContract',
  ],
  'mcpkit/console-to-stderr': [],
  'mcpkit/stdio': ['type StdioOptions', 'stdio'],
  'mcpkit/http': [
    'type HttpAddress',
    'type HttpMiddleware',
    'type HttpOptions',
    'type HttpTransport',
    'type RequestListener',
    'httpServer',
    'httpTransport',
  ],
  'mcpkit/fetch': [
    'type FetchHandler',
    'type LambdaHandler',
    'type LambdaHttpEvent',
    'type LambdaHttpResult',
    'fetchHandler',
    'lambdaHandler',
  ],
  'mcpkit/compose': ['type ProxyOptions', 'type ProxyTransport', 'mount', 'proxy', 'unmount'],
};

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { import: { types: string; default: string }; require: { types: string; default: string } }>;
  typesVersions: { '*': Record<string, string[]> };
};
/** Each entry point package.json exports (the ESM build script reads the same list), with its source file. */
const entryPoints = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
  typeof target === 'string'
    ? []
    : [
        {
          name: subpath === '.' ? 'mcpkit' : `mcpkit/${subpath.slice(2)}`,
          subpath,
          target,
          source: target.require.default.replace(/^\.\/lib\//, 'src/').replace(/\.js$/, '.ts'),
        },
      ],
);

const program = ts.createProgram(
  entryPoints.map((e) => join(ROOT, e.source)),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    types: ['node'],
    noEmit: true,
  },
);
const checker = program.getTypeChecker();

/** True when the name can only be used as a type: exported with `export type`, or declared as one. */
function typeOnly(exported: ts.Symbol): boolean {
  let symbol = exported;
  while (symbol.flags & ts.SymbolFlags.Alias) {
    if (symbol.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d))) return true;
    symbol = checker.getImmediateAliasedSymbol(symbol)!;
  }
  return !(symbol.flags & ts.SymbolFlags.Value);
}

function exportsOf(source: string): ts.Symbol[] {
  const module = checker.getSymbolAtLocation(program.getSourceFile(join(ROOT, source))!);
  return module ? checker.getExportsOfModule(module) : [];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const listed = (source: string) =>
  exportsOf(source)
    .sort((a, b) => byName(a.name, b.name))
    .map((s) => (typeOnly(s) ? `type ${s.name}` : s.name));

describe('the public API', () => {
  it('has exactly the entry points listed here, each with CommonJS and ESM builds and typesVersions for node10 resolution', () => {
    expect(entryPoints.map((e) => e.name).sort(byName)).toEqual(Object.keys(PUBLIC_API).sort(byName));
    for (const { subpath, target } of entryPoints) {
      const base = target.require.default.replace(/\.js$/, '');
      expect(target).toEqual({
        import: { types: `${base}.d.mts`, default: `${base}.mjs` },
        require: { types: `${base}.d.ts`, default: `${base}.js` },
      });
      if (subpath !== '.') expect(pkg.typesVersions['*'][subpath.slice(2)]).toEqual([`${base.slice(2)}.d.ts`]);
    }
  });

  it.each(entryPoints.map((e) => [e.name, e.source]))('%s exports the names listed here (sorted) and no others', (name, source) => {
    expect(listed(source)).toEqual(PUBLIC_API[name]);
  });

  it('exports each name from one entry point only', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const { name, source } of entryPoints) {
      for (const symbol of exportsOf(source)) {
        if (seen.has(symbol.name)) twice.push(`${symbol.name}: ${seen.get(symbol.name)} and ${name}`);
        seen.set(symbol.name, name);
      }
    }
    expect(twice).toEqual([]);
  });

  it('lists names in every barrel of src/: no `export *`', () => {
    const files = sourceFiles(ROOT, 'src').filter((f) => /^\s*export\s+\*/m.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(files).toEqual([]);
  });

  it('keeps entry points at the edge: nothing in src/ imports one (they would pull every module in, and make cycles)', () => {
    const sources = new Set(entryPoints.map((e) => e.source));
    const files = sourceFiles(ROOT, 'src');
    expect(importEdges(ROOT, files).filter((e) => sources.has(e.to))).toEqual([]);
  });
});
