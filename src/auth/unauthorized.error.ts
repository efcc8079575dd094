/**
 * Thrown by the `authenticate` option to refuse a request: answered 401 with this message (and the
 * `WWW-Authenticate` challenge when given). Any other exception from the hook is a fault of the
 * server: logged and answered 500.
 */
export class UnauthorizedError extends Error {
  constructor(
    message = 'Unauthorized',
    /** Sent as the `WWW-Authenticate` header, e.g. `Bearer resource_metadata="…"`. */
    readonly challenge?: string,
  ) {
    super(message);
    this.name = 'UnauthorizedError';
  }
}
