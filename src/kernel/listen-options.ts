import type { Implementation } from '../mcp/mcp-types';
import type { ConnectionOptions } from '../protocol/connection';
import type { HttpOptions } from '../transports/http/http-options';
import type { StdioOptions } from '../transports/stdio.transport';

/** Where `listen` serves the application. */
export interface ListenOptions {
  /** Serve one client over this process's stdin/stdout. */
  stdio?: boolean | StdioOptions;
  /** Serve Streamable HTTP on a Koa server of its own. */
  http?: HttpOptions;
}

/** Options of `connect` (a transport with one client). */
export interface ConnectOptions extends Pick<ConnectionOptions, 'requireInitialize'> {
  /** Called once the transport closed and the requests in flight ended. */
  onClose?: () => void;
}

/** One client served by `connect`. */
export interface ConnectionHandle {
  readonly initialized: boolean;
  readonly closed: boolean;
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
  /** Cancels the client's requests in flight and closes the transport. */
  close(): Promise<void>;
}

export interface ListenResult {
  http?: { host: string; port: number; url: string };
}
