import type { AuthInfo } from '../context/mcp-context';
import { InvalidTokenError } from './auth.errors';
import type { TokenVerifier } from './token-verifier';

/** Fixed tokens, each with its AuthInfo: for development and tests, never production. */
export class StaticTokenVerifier implements TokenVerifier {
  private readonly tokens: ReadonlyMap<string, AuthInfo>;

  constructor(tokens: Readonly<Record<string, AuthInfo>> | ReadonlyMap<string, AuthInfo>) {
    this.tokens = tokens instanceof Map ? new Map(tokens) : new Map(Object.entries(tokens));
  }

  async verify(token: string): Promise<AuthInfo> {
    const auth = this.tokens.get(token);
    if (!auth) throw new InvalidTokenError('The token is unknown');
    if (auth.expiresAt !== undefined && auth.expiresAt * 1000 <= Date.now()) throw new InvalidTokenError('The token expired');
    return auth;
  }
}
