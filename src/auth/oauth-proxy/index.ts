export { OAuthProxy } from './oauth-proxy';
export type {
  OAuthProxyOptions,
  UpstreamProviderOptions,
  UpstreamTokens,
  UpstreamIdentity,
  SigningJwk,
  EnterpriseOptions,
  TrustedIdentityProvider,
} from './oauth-proxy.options';
export type { OAuthProxyStore } from './oauth-proxy.store';
export { InMemoryOAuthProxyStore } from './in-memory.oauth-proxy-store';
export type { InMemoryOAuthProxyStoreOptions } from './in-memory.oauth-proxy-store';
export { OAuthError } from './oauth.error';
