import type { RequestTelemetry, TelemetryOptions } from './telemetry-options';

/**
 * The telemetry of an application, or undefined when it is off: then @opentelemetry/api is never
 * required, and a request costs one property check.
 */
export function createTelemetry(options: TelemetryOptions | undefined): RequestTelemetry | undefined {
  const mode = options?.mode ?? 'off';
  if (mode === 'off') return undefined;
  // Loaded here only: @opentelemetry/api is an optional peer dependency.
  let api: typeof import('@opentelemetry/api');
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  } catch (error) {
    throw new Error(`telemetry mode '${mode}' needs the optional peer dependency @opentelemetry/api: npm install @opentelemetry/api`, {
      cause: error,
    });
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OtelTelemetry } = require('./otel-telemetry') as typeof import('./otel-telemetry');
  return new OtelTelemetry(api, { ...options, mode });
}
