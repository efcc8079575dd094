import type { LogFields, ServerLogger } from './server-logger';

/** The part of a pino logger (https://getpino.io) that pinoLogger calls: `(mergingObject, message)`. */
export interface PinoLike {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/**
 * Plugs a pino logger (or anything with pino's `(obj, msg)` methods) in as the server log:
 * `McpApplication.create(AppModule, { logger: pinoLogger(pino()) })`. Fields become properties of
 * the merging object; an error goes under `err`, which pino's standard serializer expands. pino's own
 * level decides what is written (mcpkit's `logLevel` option filters before it).
 */
export function pinoLogger(pino: PinoLike): ServerLogger {
  const obj = (fields?: LogFields) => ({ ...fields });
  return {
    error: (message, error, fields) => pino.error(error === undefined ? obj(fields) : { ...fields, err: error }, message),
    warn: (message, fields) => pino.warn(obj(fields), message),
    info: (message, fields) => pino.info(obj(fields), message),
    debug: (message, fields) => pino.debug(obj(fields), message),
  };
}
