import type { IncomingMessage } from 'node:http';

/** Thrown when a request body passes its limit (before it is buffered further). */
export class BodyTooLargeError extends Error {}

/** Thrown when a request body did not arrive in time. */
export class BodyTimeoutError extends Error {}

/**
 * Reads a request body, refusing (without buffering further) once it passes `limit` bytes or once
 * `timeoutMs` passed before its end (0 disables the timeout).
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs = 0): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            cleanup();
            reject(new BodyTimeoutError());
          }, timeoutMs)
        : undefined;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
