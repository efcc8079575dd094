import type { FrontDoor } from '../kernel/serving';
import type { McpApplication } from '../kernel/mcp-application';
import { servingOf } from '../kernel/app-internals';
import type { Serving } from '../kernel/serving';
import type { HttpTransport } from '../transports/http/http-handler.types';
import type { HttpOptions } from '../transports/http/http-options';
import { StreamableHttpTransport } from '../transports/http/streamable-http';
import { httpOptionsOf } from './http-defaults';

/** Where an HTTP server of the application listens: its host, the port bound (port 0 picks one), the endpoint's URL. */
export interface HttpAddress {
  readonly host: string;
  readonly port: number;
  readonly url: string;
}

/**
 * Serves Streamable HTTP on a Node server of its own, with Koa: `const { url } = await
 * app.listen(httpServer({ port: 3000 }))`. Rejects with `AddressInUseError` when the address is taken.
 */
export function httpServer(options: HttpOptions = {}): FrontDoor<Promise<HttpAddress>> {
  return {
    open: async (serving) => {
      const { transport, release } = streamableHttp(serving, options);
      try {
        return await transport.listen();
      } catch (error) {
        release();
        // The listen error is what the caller needs; a failure to release the half-started transport is only logged.
        await transport.close().catch((e) => serving.logger.error('Could not close a transport that failed to listen', e));
        throw error;
      }
    },
  };
}

/**
 * The Streamable HTTP endpoint of `app` for a server you run: mount `middleware()` in your own Koa app
 * (beside your middleware and routes), or pass `callback()` to a Node server (or supertest). Closed
 * with the application.
 */
export function httpTransport(app: McpApplication, options: HttpOptions = {}): HttpTransport {
  return streamableHttp(servingOf(app), options).transport;
}

function streamableHttp(serving: Serving, options: HttpOptions): { transport: StreamableHttpTransport; release: () => void } {
  const transport = new StreamableHttpTransport(serving.sessionFactory(), httpOptionsOf(serving, options));
  const release = serving.track({ stopAccepting: () => transport.stopAccepting(), close: () => transport.close() });
  return { transport, release };
}
