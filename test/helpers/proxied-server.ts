import { injectable } from 'tsyringe';
import { EmptyInput, McpApplication, McpContext, McpModule, Tool } from '../../src';
import { type DpopOptions, OAuthProxy, type OAuthProxyOptions } from '../../src/auth';
import { httpTransport } from '../../src/http';
import type { ProxySite } from './upstream-idp';

@injectable()
class WhoTools {
  @Tool({ description: 'Tells who is calling' })
  whoami(_: EmptyInput, ctx: McpContext) {
    return `${ctx.auth?.subject} with ${ctx.auth?.scopes?.join(' ')}`;
  }
}

@McpModule({ providers: [WhoTools], server: { name: 'proxied', version: '1.0.0' } })
class WhoModule {}

/**
 * One mcpkit server on `site` that is both the authorization server (the OAuth proxy in front of the
 * site's IdP, scope `mcp:tools`) and the resource server taking its tokens, with a `whoami` tool
 * answering `<subject> with <scopes>`. Mounted on the site's own server, so `resource` is explicit.
 */
export async function serveBehindProxy(
  site: ProxySite,
  options: { proxy?: Partial<OAuthProxyOptions>; dpop?: DpopOptions } = {},
): Promise<McpApplication> {
  const proxy = new OAuthProxy({
    issuer: site.origin,
    resource: site.resource,
    upstream: { ...site.upstream, scopes: ['openid', 'email'] },
    scopesSupported: ['mcp:tools'],
    logError: () => undefined,
    ...options.proxy,
  });
  const app = await McpApplication.create(WhoModule, { logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
  const transport = httpTransport(app, {
    oauthProxy: proxy,
    auth: {
      authorizationServers: [site.origin],
      resource: site.resource,
      scopesSupported: ['mcp:tools'],
      verifier: proxy.verifier(),
      ...(options.dpop ? { dpop: options.dpop } : {}),
    },
  });
  site.serve(transport.callback());
  return app;
}
