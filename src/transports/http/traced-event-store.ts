import type { RequestTelemetry } from '../../protocol/telemetry/telemetry-options';
import { traced } from '../../protocol/telemetry/traced';
import type { HttpOptions } from './http-options';

const TRACED = new Set(['storeEvent', 'storeSerialized', 'eventsAfter', 'clearSession']);

/** HTTP options whose configured event store has a child span per call (`event_store {operation}`) when telemetry is on. */
export function withTracedEventStore(options: HttpOptions, telemetry: RequestTelemetry | undefined): HttpOptions {
  if (!telemetry || !options.eventStore) return options;
  return { ...options, eventStore: traced(options.eventStore, telemetry, 'event_store', 'mcpkit.event_store.operation', TRACED) };
}
