import {
  LOGGING_LEVELS,
  type LoggingLevel,
  SUPPORTED_PROTOCOL_VERSIONS,
  LATEST_PROTOCOL_VERSION,
  type Implementation,
} from '../../mcp/mcp-types';
import { McpError } from '../../mcp/mcp.error';
import type { MethodHandler } from '../request-scope';
import { echo } from '../wire';
import { type HandlerEnv, optionalObject, requireString } from './handler-env';

/** initialize, ping and logging/setLevel. */
export function lifecycleHandlers(env: HandlerEnv): Record<string, MethodHandler> {
  return {
    initialize: (params, scope) => {
      const requested = requireString(params, 'protocolVersion');
      const capabilities = optionalObject(params, 'capabilities') ?? {};
      const clientInfo = optionalObject(params, 'clientInfo');
      const session = scope.session;
      if (!session) throw McpError.methodNotFound('initialize (this connection has no session)');
      if (session.initialized) throw McpError.invalidRequest('Already initialized');
      const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
      const advertised = env.capabilities();
      session.initialize(
        { protocolVersion, clientCapabilities: capabilities, clientInfo: clientInfo as Implementation | undefined },
        advertised,
      );
      const result: Record<string, unknown> = { protocolVersion, capabilities: advertised, serverInfo: env.serverInfo };
      if (env.instructions) result.instructions = env.instructions;
      return result;
    },
    ping: () => ({}),
    'logging/setLevel': (params, scope) => {
      const level = requireString(params, 'level');
      if (!LOGGING_LEVELS.includes(level as LoggingLevel)) {
        throw McpError.invalidParams(`Invalid params: unknown logging level "${echo(level)}"`, { levels: LOGGING_LEVELS });
      }
      scope.session?.setLogLevel(level as LoggingLevel);
      return {};
    },
  };
}
