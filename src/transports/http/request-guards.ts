import { echo } from '../../protocol/wire';
import type { AuthInfo } from '../../context/mcp-context';
import { ErrorCode } from '../../mcp/json-rpc';
import { McpError } from '../../mcp/mcp.error';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/mcp-types';
import { HostGuard } from './host-guard';
import { type Ctx, fail } from './http-replies';
import type { ResolvedHttpOptions } from './http-options';
import { ResourceServer } from './resource-server';
import { UnauthorizedError } from './unauthorized.error';
import { AuthConfigurationError } from '../../auth/auth-configuration.error';
import { withPrincipal } from '../../auth/principal';

/** The methods of the MCP endpoint. */
export const ALLOW = 'GET, POST, DELETE';

/**
 * The checks every request of the MCP path passes before its method is served: CORS headers,
 * shutdown, Host/Origin (DNS rebinding), MCP-Protocol-Version, and who is calling.
 */
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
    if (options.auth) this.resourceServer = new ResourceServer(options.auth, options.path, options.host, logError);
  }

  /** True when the request may be served; otherwise it has been answered (503, 403 or 400). */
  admit(ctx: Ctx, closing: boolean): boolean {
    if (this.options.cors) this.applyCors(ctx);
    if (closing) {
      fail(ctx, 503, -32000, 'Server is shutting down');
      return false;
    }
    if (this.hostRefused(ctx)) return false;
    const version = ctx.get('mcp-protocol-version');
    // A POST's version is judged with its body (the era of the request decides how).
    if (ctx.method !== 'POST' && version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      fail(
        ctx,
        400,
        -32000,
        `Bad Request: unsupported MCP-Protocol-Version ${echo(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
      return false;
    }
    return true;
  }

  /** True after answering 403 when DNS-rebinding protection refuses the request's Host or Origin. */
  hostRefused(ctx: Ctx): boolean {
    if (!this.options.dnsRebindingProtection) return false;
    const problem = this.host.check(ctx.get('host') || undefined, ctx.get('origin') || undefined);
    if (problem) fail(ctx, 403, -32000, `Forbidden: ${problem}`);
    return problem !== undefined;
  }

  /**
   * Checks the bearer token (`auth`) or runs the `authenticate` option; resolves undefined after
   * answering 401 when it refuses (UnauthorizedError), or 500 when it fails otherwise (logged: a broken
   * hook is not a bad client).
   */
  async authenticate(ctx: Ctx): Promise<{ auth: AuthInfo | undefined } | undefined> {
    if (this.resourceServer) return this.resourceServer.authenticate(ctx);
    try {
      const auth = await this.options.authenticate?.({ headers: ctx.req.headers, method: ctx.method, url: ctx.url });
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
        if (error.challenge) ctx.set('WWW-Authenticate', error.challenge);
        fail(ctx, 401, -32000, error.message);
      } else {
        this.logError('The authenticate hook failed', error);
        fail(ctx, 500, ErrorCode.InternalError, 'Internal error');
      }
      return undefined;
    }
  }

  /**
   * How a refusal (ForbiddenError) answered before anything else was sent looks over HTTP. With OAuth:
   * an anonymous caller gets 401 and the challenge that starts authorization (RFC 6750 §3, MCP
   * authorization); an authenticated one 403 `insufficient_scope`, asking for what it holds plus what
   * the operation needs (the spec's step-up). Without OAuth: 403 and no Bearer challenge.
   */
  refusal(auth: AuthInfo | undefined, requiredScopes: readonly string[], description: string): { status: 401 | 403; challenge?: string } {
    const server = this.resourceServer;
    if (!server) return { status: 403 };
    if (!auth) return { status: 401, challenge: server.challenge(undefined, requiredScopes) };
    return { status: 403, challenge: server.forbiddenChallenge([...new Set([...(auth.scopes ?? []), ...requiredScopes])], description) };
  }

  /** A fault nothing closer handled: logged, and answered with a JSON-RPC error (never Koa's text 500). */
  unexpected(ctx: Ctx, error: unknown): void {
    this.logError(`${ctx.method} ${this.options.path} failed`, error);
    if (ctx.respond === false || ctx.headerSent) {
      if (!ctx.res.writableEnded) ctx.res.end();
      return;
    }
    const e = error instanceof McpError ? error : new McpError(ErrorCode.InternalError, 'Internal error');
    fail(ctx, 500, e.code, e.message);
  }

  preflight(ctx: Ctx): void {
    if (this.options.cors) this.applyCors(ctx);
    ctx.set('Allow', ALLOW);
    ctx.status = 204;
  }

  private applyCors(ctx: Ctx): void {
    const { origins } = this.options.cors!;
    const origin = ctx.get('origin');
    if (origins === '*') ctx.set('Access-Control-Allow-Origin', '*');
    else if (origin && origins.includes(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.vary('Origin');
    } else return;
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID');
    ctx.set('Access-Control-Expose-Headers', 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
  }
}
