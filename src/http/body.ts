import type { IncomingMessage } from 'node:http';
import type getRawBody from 'raw-body';

/** Thrown when a request body passes its limit (before it is buffered further). */
export class BodyTooLargeError extends Error {}

/** Thrown when a request body did not arrive in time. */
export class BodyTimeoutError extends Error {}

/** raw-body, the body reader of Koa's body parsers: loaded with the first body read, so a stdio server never loads it. */
function loadRawBody(): typeof getRawBody {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('raw-body') as typeof getRawBody;
}

/**
 * Reads a request body with raw-body, which refuses a declared or received length past `limit`
 * before buffering further: BodyTooLargeError then, after which the rest of the body is read and
 * dropped (so that an answer can go out and the connection stays usable). BodyTimeoutError when the
 * body did not end within `timeoutMs` (0: no limit). Any other rejection is the connection's.
 */
export async function readBody(req: IncomingMessage, limit: number, timeoutMs = 0): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const reading = loadRawBody()(req, { length: Number.isFinite(declared) ? declared : undefined, limit });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    if (timeoutMs > 0) timer = setTimeout(() => reject(new BodyTimeoutError()), timeoutMs);
  });
  try {
    return await Promise.race([reading, timedOut]);
  } catch (error) {
    if ((error as { type?: string }).type !== 'entity.too.large') throw error;
    req.resume();
    throw new BodyTooLargeError();
  } finally {
    clearTimeout(timer);
  }
}
