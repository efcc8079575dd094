import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { BodyTooLargeError } from './body-too-large.error';

/**
 * Reads a request body with raw-body, which refuses a declared or received length past `limit` before
 * buffering further: BodyTooLargeError then, after which the rest of the body is read and dropped (so
 * that an answer can go out and the connection stays usable). How long a body may take is the Node
 * server's `requestTimeout` (see StreamableHttpTransport.listen). Any other rejection is the connection's.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  try {
    return await getRawBody(req, { length: Number.isFinite(declared) ? declared : undefined, limit });
  } catch (error) {
    if ((error as { type?: string }).type !== 'entity.too.large') throw error;
    req.resume();
    throw new BodyTooLargeError();
  }
}
