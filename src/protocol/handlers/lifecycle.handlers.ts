import { LOGGING_LEVELS, LoggingLevel, SUPPORTED_PROTOCOL_VERSIONS, LATEST_PROTOCOL_VERSION, ClientCapabilities, Implementation } from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { MethodHandler } from '../request-scope';
import { echo } from '../wire';
import { HandlerEnv, optionalObject, requireString } from './handler-env';

/** initialize, ping and logging/setLevel. */
export function lifecycleHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  return {
    initialize: (params, scope) => {
      const requested = requireString(params, 'protocolVersion');
      const capabilities = optionalObject(params, 'capabilities') ?? {};
      const clientInfo = optionalObject(params, 'clientInfo');
      const session = scope.session;
      if (session.initialized) throw McpError.invalidRequest('Already initialized');
      session.protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      session.clientCapabilities = capabilities as ClientCapabilities;
      session.clientInfo = clientInfo as Implementation | undefined;
      // Requests that follow are served even if the client never sends notifications/initialized.
      session.initialized = true;
      const result: Record<string, unknown> = {
        protocolVersion: session.protocolVersion,
        capabilities: env.capabilities,
        serverInfo: env.serverInfo,
      };
      if (env.instructions) result.instructions = env.instructions;
      return result;
    },
    ping: () => ({}),
    'logging/setLevel': (params, scope) => {
      const level = requireString(params, 'level');
      if (!LOGGING_LEVELS.includes(level as LoggingLevel)) {
        throw McpError.invalidParams(`Invalid params: unknown logging level "${echo(level)}"`, { levels: LOGGING_LEVELS });
      }
      scope.session.changeState({ logLevel: level as LoggingLevel });
      return {};
    },
  };
}
