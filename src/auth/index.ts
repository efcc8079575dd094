/**
 * `mcpkit/auth`: who is calling. Token verifiers for an OAuth 2.1 resource server (the `auth` option
 * of HTTP and stdio), the errors a verifier or an `authenticate` hook throws, and the OAuth proxy (an
 * authorization server in front of a provider without dynamic client registration). `ForbiddenError`,
 * which handlers and guards throw, is in `mcpkit`.
 *
 * @module mcpkit/auth
 */
export type { TokenVerifier, VerifyContext } from './token-verifier';
export { JwtVerifier, DEFAULT_JWT_ALGORITHMS } from './jwt.verifier';
export type { JwtVerifierOptions } from './jwt.verifier';
export { IntrospectionVerifier } from './introspection.verifier';
export type { IntrospectionVerifierOptions } from './introspection.verifier';
export { StaticTokenVerifier } from './static-token.verifier';
export type { ResourceServerOptions, StdioAuthOptions, DpopOptions } from './resource-server-options';
export { InMemoryDpopStore } from './dpop-store';
export type { DpopStore, InMemoryDpopStoreOptions } from './dpop-store';
export { DEFAULT_DPOP_ALGORITHMS } from './dpop-proof';
export { InvalidTokenError, AuthorizationServerError } from './auth.errors';
export { AuthConfigurationError } from './auth-configuration.error';
export { UnauthorizedError } from './unauthorized.error';
export { OAuthProxy, InMemoryOAuthProxyStore, OAuthError } from './oauth-proxy';
export type {
  OAuthProxyOptions,
  EnterpriseOptions,
  TrustedIdentityProvider,
  UpstreamProviderOptions,
  UpstreamTokens,
  UpstreamIdentity,
  SigningJwk,
  OAuthProxyStore,
  InMemoryOAuthProxyStoreOptions,
} from './oauth-proxy';
