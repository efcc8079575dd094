import type { AuthInfo } from '../context/mcp-context';
import type { Implementation } from '../mcp/mcp-types';
import type { Connection, ConnectionOptions } from '../protocol/connection';

/** Options of `connect` (a transport with one client). */
export interface ConnectOptions extends Pick<ConnectionOptions, 'requireInitialize'> {
  /** Who the client is, already verified (e.g. a stdio token): `ctx.auth` of every request. */
  auth?: AuthInfo;
  /** Called once the transport closed and the requests in flight ended. */
  onClose?: () => void;
  /**
   * The client is the local user (stdio, in-process): per-handler requirements (`@RequireScopes`,
   * guards) are waived, as the MCP spec leaves such connections to their environment. Default: true
   * for `stdio()` without `auth` and for `connectInMemory`, false for `connect`.
   */
  local?: boolean;
}

/** One client served by `connect`. */
export interface ConnectionHandle {
  /** The client completed its handshake (or sent a request of the per-request era). */
  readonly initialized: boolean;
  /** The transport closed (from either side). */
  readonly closed: boolean;
  /** The protocol version agreed with the client. */
  readonly protocolVersion: string;
  /** The client's name and version, once it said them. */
  readonly clientInfo?: Implementation;
  /** Cancels the client's requests in flight and closes the transport. */
  close(): Promise<void>;
}

/** Something that serves the application and must be shut down with it. */
export interface Served {
  /** Refuses new work (requests in flight go on). */
  stopAccepting(): void;
  close(): Promise<void>;
}

/** The handle `connect` returns: a view of the connection, never the connection itself. */
export function handleOf(connection: Connection, close: () => Promise<void>): ConnectionHandle {
  return {
    get initialized() {
      return connection.initialized;
    },
    get closed() {
      return connection.closed;
    },
    get clientInfo() {
      return connection.peer.clientInfo;
    },
    get protocolVersion() {
      return connection.peer.protocolVersion;
    },
    close,
  };
}
