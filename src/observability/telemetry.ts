import type * as Api from '@opentelemetry/api';
import { OtelTelemetry } from './otel-telemetry';
import type { RequestTelemetry, TelemetryOptions } from './telemetry-options';

/**
 * The telemetry of an application, or undefined when it is off: then @opentelemetry/api is never
 * required, and a request costs one property check.
 */
export function createTelemetry(options: TelemetryOptions | undefined): RequestTelemetry | undefined {
  const mode = options?.mode ?? 'off';
  if (mode === 'off') return undefined;
  return new OtelTelemetry(loadOpenTelemetry(mode), { ...options, mode });
}

/** @opentelemetry/api, loaded here only: it is an optional peer dependency, and a server with telemetry off never loads it. */
function loadOpenTelemetry(mode: string): typeof Api {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@opentelemetry/api') as typeof Api;
  } catch (error) {
    throw new Error(`telemetry mode '${mode}' needs the optional peer dependency @opentelemetry/api: npm install @opentelemetry/api`, {
      cause: error,
    });
  }
}
