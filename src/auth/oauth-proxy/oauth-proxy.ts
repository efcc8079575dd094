import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../../context/mcp-context';
import type { TokenVerifier } from '../token-verifier';
import type { OAuthProxyOptions, UpstreamTokens } from './oauth-proxy.options';
import { OAuthProxyServer } from './oauth-proxy.server';

/**
 * An OAuth 2.1 authorization server in front of an identity provider that has no dynamic registration
 * (GitHub, Google...): MCP clients register with it (RFC 7591 or client ID metadata documents), sign in
 * upstream through it with the proxy's fixed client id, and get the proxy's own tokens, bound to the MCP
 * server's resource. Mount it with the HTTP transport's `oauthProxy` option, or serve `listener()`.
 */
export class OAuthProxy {
  private readonly server: OAuthProxyServer;

  constructor(options: OAuthProxyOptions) {
    this.server = new OAuthProxyServer(options);
  }

  /** The issuer URL: put it in the resource server's `authorizationServers`. */
  get issuer(): string | undefined {
    return this.server.issuer;
  }

  /** A TokenVerifier for the tokens this proxy issues (signature, issuer, audience = the resource, not revoked). */
  verifier(): TokenVerifier {
    return this.server.verifier();
  }

  /**
   * The upstream provider's tokens behind a request's credentials (`ctx.auth`), for calling the
   * provider's API on the user's behalf; undefined once the grant is revoked or expired.
   */
  upstreamTokens(auth: AuthInfo | undefined): Promise<UpstreamTokens | undefined> {
    return this.server.upstreamTokens(auth);
  }

  /** RFC 8414 metadata. */
  metadata(): Record<string, unknown> {
    return this.server.metadata();
  }

  /** A Node request listener serving only the proxy's endpoints (404 elsewhere). */
  listener(): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
    return this.server.listener();
  }

  /** Serves the request when it is for one of the proxy's endpoints; resolves false otherwise (the caller routes it on). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    return this.server.handle(req, res);
  }
}
