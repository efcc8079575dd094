import { echo } from '../../protocol/wire';
import type { AuthInfo } from '../../context/mcp-context';
import { ErrorCode } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/mcp-types';
import { HostGuard } from './host-guard';
import type { HttpExchange } from './http-exchange';
import { fail } from './http-replies';
import type { ResolvedHttpOptions } from './http-options';
import { ResourceServer } from './resource-server';
import { UnauthorizedError } from '../../auth/unauthorized.error';
import type { ForbiddenOptions } from '../../auth/auth.errors';
import { AuthConfigurationError } from '../../auth/auth-configuration.error';
import { withPrincipal } from '../../auth/principal';

/** The methods of the MCP endpoint. */
export const ALLOW = 'GET, POST, DELETE';

/**
 * The checks every request of the MCP path passes before its method is served: CORS headers,
 * shutdown, Host/Origin (DNS rebinding), MCP-Protocol-Version, and who is calling.
 */
/** The caller of a server with no authentication: the same frozen answer for every request. */
const ANONYMOUS: { auth: AuthInfo | undefined } = Object.freeze({ auth: undefined });

export class RequestGuards {
  readonly host: HostGuard;
  /** Set when the `auth` option makes this transport an OAuth resource server. */
  readonly resourceServer?: ResourceServer;

  constructor(
    private readonly options: ResolvedHttpOptions,
    configuredPort: number | undefined,
    private readonly logError: (message: string, error?: unknown) => void,
  ) {
    this.host = new HostGuard(options.allowedHosts, options.allowedOrigins, configuredPort);
    if (options.auth) this.resourceServer = new ResourceServer(options.auth, options.path, options.host, logError, options.dpopStore);
  }

  /** True when the request may be served; otherwise it has been answered (503, 403 or 400). */
  admit(exchange: HttpExchange, closing: boolean): boolean {
    if (this.options.cors) this.applyCors(exchange);
    if (closing) {
      fail(exchange, 503, -32000, 'Server is shutting down');
      return false;
    }
    if (this.hostRefused(exchange)) return false;
    const version = exchange.header('mcp-protocol-version');
    // A POST's version is judged with its body (the era of the request decides how).
    if (exchange.method !== 'POST' && version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      fail(
        exchange,
        400,
        -32000,
        `Bad Request: unsupported MCP-Protocol-Version ${echo(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
      return false;
    }
    return true;
  }

  /** True after answering 403 when DNS-rebinding protection refuses the request's Host or Origin. */
  hostRefused(exchange: HttpExchange, origin = true): boolean {
    if (!this.options.dnsRebindingProtection) return false;
    const problem = this.host.check(exchange.header('host') || undefined, (origin && exchange.header('origin')) || undefined);
    if (problem) fail(exchange, 403, -32000, `Forbidden: ${problem}`);
    return problem !== undefined;
  }

  /**
   * The check of a public discovery document (OAuth metadata, the server card), which any web page may
   * read: its Host only, so that a rebound name still gets 403 while every Origin is served.
   */
  discoveryRefused(exchange: HttpExchange): boolean {
    return this.hostRefused(exchange, false);
  }

  /**
   * Checks the bearer token (`auth`) or runs the `authenticate` option; resolves undefined after
   * answering 401 when it refuses (UnauthorizedError), or 500 when it fails otherwise (logged: a broken
   * hook is not a bad client).
   */
  async authenticate(exchange: HttpExchange): Promise<{ auth: AuthInfo | undefined } | undefined> {
    if (this.resourceServer) return this.resourceServer.authenticate(exchange);
    if (!this.options.authenticate) return ANONYMOUS;
    return this.runHook(exchange);
  }

  private async runHook(exchange: HttpExchange): Promise<{ auth: AuthInfo | undefined } | undefined> {
    try {
      const auth = await this.options.authenticate?.({ headers: exchange.headers, method: exchange.method, url: exchange.url });
      if (!auth) return { auth: undefined };
      const owned = withPrincipal(auth);
      // Two callers the hook names no differently would share sessions and tasks: refused, not guessed.
      if (!owned)
        throw new AuthConfigurationError(
          'The authenticate hook returned AuthInfo with no `subject`, `clientId` or `principal`: name the caller',
        );
      return { auth: owned };
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        if (error.challenge) exchange.setHeader('WWW-Authenticate', error.challenge);
        fail(exchange, 401, -32000, error.message);
      } else {
        this.logError('The authenticate hook failed', error);
        fail(exchange, 500, ErrorCode.InternalError, 'Internal error');
      }
      return undefined;
    }
  }

  /**
   * How a refusal (ForbiddenError) answered before anything else was sent looks over HTTP. With OAuth:
   * an anonymous caller gets 401 and the challenge that starts authorization (RFC 6750 §3, MCP
   * authorization); an authenticated one 403 `insufficient_scope`, asking for what it holds plus what
   * the operation needs (the spec's step-up), or 401 `insufficient_user_authentication` when the refusal
   * asks it to sign in again more strongly (RFC 9470). Without OAuth: 403 and no Bearer challenge.
   */
  refusal(
    auth: AuthInfo | undefined,
    requiredScopes: readonly string[],
    description: string,
    stepUp?: ForbiddenOptions['stepUp'],
  ): { status: 401 | 403; challenge?: string } {
    const server = this.resourceServer;
    if (!server) return { status: 403 };
    if (!auth) return { status: 401, challenge: server.challenge(undefined, requiredScopes) };
    if (stepUp) return { status: 401, challenge: server.stepUpChallenge(stepUp, description, auth) };
    return {
      status: 403,
      challenge: server.forbiddenChallenge([...new Set([...(auth.scopes ?? []), ...requiredScopes])], description, auth),
    };
  }

  /** A fault nothing closer handled: logged, and answered with a JSON-RPC error (never Koa's text 500). */
  unexpected(exchange: HttpExchange, error: unknown): void {
    this.logError(`${exchange.method} ${this.options.path} failed`, error);
    if (exchange.started) return exchange.abort();
    const e = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
    fail(exchange, 500, e.code, e.message);
  }

  preflight(exchange: HttpExchange): void {
    if (this.options.cors) this.applyCors(exchange);
    exchange.setHeader('Allow', ALLOW);
    exchange.reply(204);
  }

  private applyCors(exchange: HttpExchange): void {
    const { origins } = this.options.cors!;
    const origin = exchange.header('origin');
    if (origins === '*') exchange.setHeader('Access-Control-Allow-Origin', '*');
    else if (origin && origins.includes(origin)) {
      exchange.setHeader('Access-Control-Allow-Origin', origin);
      exchange.vary('Origin');
    } else return;
    exchange.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
    exchange.setHeader(
      'Access-Control-Allow-Headers',
      'Content-Type, Accept, Authorization, DPoP, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
    );
    exchange.setHeader(
      'Access-Control-Expose-Headers',
      'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, DPoP-Nonce, Retry-After, RateLimit-Limit, RateLimit-Remaining',
    );
  }
}
