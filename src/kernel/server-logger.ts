import { currentLogFields, type LogFields } from '../observability/log-context';

export type { LogFields } from '../observability/log-context';

/** Levels of the server log, least severe first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The server's own log (never sent to clients). Defaults to stderr, which stdio keeps free of protocol.
 * A logger written for `error(message, error)`, `warn(message)` and `info(message)` keeps working:
 * the `fields` arguments and `debug` are optional (see pinoLogger for plugging pino in).
 */
export interface ServerLogger {
  error(message: string, error?: unknown, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug?(message: string, fields?: LogFields): void;
}

export interface StderrLoggerOptions {
  /** Shown in text lines and as `name` in JSON lines (default mcpkit). */
  name?: string;
  /** Entries below this level are dropped (default info). */
  level?: LogLevel;
  /** `text` (default): `[name] level: message key=value`; `json`: one JSON object per line. */
  format?: 'text' | 'json';
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** True when an entry of `level` passes a logger set to `threshold`. */
export function levelEnabled(level: LogLevel, threshold: LogLevel): boolean {
  return RANK[level] >= RANK[threshold];
}

/** Writes one line per entry to stderr (text or JSON lines), with the stack of an error when there is one. */
export class StderrLogger implements ServerLogger {
  private readonly name: string;
  private readonly level: LogLevel;
  private readonly format: 'text' | 'json';

  constructor(options: string | StderrLoggerOptions = {}) {
    const o = typeof options === 'string' ? { name: options } : options;
    this.name = o.name ?? 'mcpkit';
    this.level = o.level ?? 'info';
    this.format = o.format ?? 'text';
  }

  error(message: string, error?: unknown, fields?: LogFields): void {
    this.write('error', message, fields, error);
  }
  warn(message: string, fields?: LogFields): void {
    this.write('warn', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.write('info', message, fields);
  }
  debug(message: string, fields?: LogFields): void {
    this.write('debug', message, fields);
  }

  private write(level: LogLevel, message: string, fields: LogFields | undefined, error?: unknown): void {
    if (!levelEnabled(level, this.level)) return;
    const all = { ...fields };
    if (this.format === 'json') {
      const entry: Record<string, unknown> = { time: new Date().toISOString(), level, name: this.name, msg: message, ...all };
      if (error !== undefined)
        entry.err = error instanceof Error ? { type: error.name, message: error.message, stack: error.stack } : shown(error);
      process.stderr.write(`${JSON.stringify(entry)}\n`);
      return;
    }
    const pairs = Object.entries(all)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join('');
    const detail = error instanceof Error ? `\n${error.stack ?? error.message}` : error === undefined ? '' : ` ${shown(error)}`;
    const prefix = level === 'info' ? '' : `${level}: `;
    process.stderr.write(`[${this.name}] ${prefix}${message}${pairs}${detail}\n`);
  }
}

/**
 * The logger the application uses: adds the fields of the request being served (see log-context)
 * to every entry, and drops entries below `level` when one is set (also for a user's logger).
 */
export function contextualLogger(logger: ServerLogger, level?: LogLevel): ServerLogger {
  const on = (l: LogLevel) => level === undefined || levelEnabled(l, level);
  const withContext = (fields?: LogFields): LogFields | undefined => {
    const current = currentLogFields();
    return current ? { ...current, ...fields } : fields;
  };
  return {
    error: (message, error, fields) => on('error') && logger.error(message, error, withContext(fields)),
    warn: (message, fields) => on('warn') && logger.warn(message, withContext(fields)),
    info: (message, fields) => on('info') && logger.info(message, withContext(fields)),
    debug: (message, fields) => on('debug') && logger.debug?.(message, withContext(fields)),
  };
}

/** The application's logger: yours or stderr's (with `logLevel`/`logFormat`), adding the request's fields. */
export function applicationLogger(
  options: { logger?: ServerLogger; logLevel?: LogLevel; logFormat?: 'text' | 'json' },
  name: string,
): ServerLogger {
  const { logger, logLevel, logFormat } = options;
  if (logger) return contextualLogger(logger, logLevel);
  return contextualLogger(new StderrLogger({ name, level: logLevel ?? 'info', format: logFormat }));
}

/** A thrown value that is not an Error, as a log line shows it (JSON for objects, not `[object Object]`). */
function shown(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? Object.prototype.toString.call(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
