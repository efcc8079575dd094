import { JwtVerifier } from '../../../src/auth';

describe('JwtVerifier options', () => {
  const jwks = { keys: [] };

  it('refuses symmetric algorithms and none, which published keys cannot verify safely', () => {
    expect(() => new JwtVerifier({ issuer: 'https://as', jwks, algorithms: ['RS256', 'HS256'] })).toThrow(/HS256/);
    expect(() => new JwtVerifier({ issuer: 'https://as', jwks, algorithms: ['none'] })).toThrow(/none/);
  });

  it('requires an issuer and a key source', () => {
    expect(() => new JwtVerifier({ issuer: '', jwks })).toThrow(/issuer/);
    expect(() => new JwtVerifier({ issuer: 'https://as' })).toThrow(/jwksUri/);
  });
});
