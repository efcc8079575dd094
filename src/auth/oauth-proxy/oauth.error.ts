/**
 * An OAuth error answered as RFC 6749 JSON (`{ error, error_description }`) with its HTTP status;
 * at /authorize, once the client and redirect_uri are trusted, it goes back to the client instead.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}
