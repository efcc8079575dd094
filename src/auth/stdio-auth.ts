import type { AuthInfo } from '../context/mcp-context';
import { AuthConfigurationError } from './auth-configuration.error';
import { withPrincipal } from './principal';
import type { StdioAuthOptions } from './resource-server-options';

/** The stdio client's AuthInfo, with its principal: its token (from the environment by default) verified once, at start. */
export async function verifyStdioToken(options: StdioAuthOptions): Promise<AuthInfo> {
  const token = options.token ?? process.env.MCP_ACCESS_TOKEN;
  if (!token) throw new AuthConfigurationError('stdio.auth: no token (set MCP_ACCESS_TOKEN or give `token`)');
  return withPrincipal(await options.verifier.verify(token, { resource: options.resource }), token)!;
}
