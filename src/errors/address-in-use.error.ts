/** `listen()` found its HTTP address taken by another server. Not a definition error: the code is fine, the port is not free. */
export class AddressInUseError extends Error {
  readonly code = 'EADDRINUSE';

  constructor(
    readonly host: string,
    readonly port: number,
    options?: { cause?: unknown },
  ) {
    super(
      `Cannot listen on ${host}:${port}: the address is already in use (another server, or another instance of this one, holds it). ` +
        `Stop that server, or listen elsewhere: app.listen(httpServer({ port, host })) (port 0 picks a free one; ` +
        `read it from an environment variable such as PORT to change it without a rebuild).`,
      options,
    );
    this.name = 'AddressInUseError';
  }
}
