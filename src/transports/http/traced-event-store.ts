import type { RequestTelemetry } from '../../observability/telemetry-options';
import { traced } from '../../observability/traced';
import { InMemoryEventStore } from './event-store';
import type { HttpOptions } from './http-options';

const TRACED = new Set(['storeEvent', 'storeSerialized', 'eventsAfter', 'clearSession']);
const BACKPLANE = new Set(['save', 'load', 'update', 'delete', 'publish', 'subscribe']);

/**
 * HTTP options whose event store (the configured one, else the default in-memory one) has a child
 * span per call (`event_store {operation}`), and so has the session backplane (`session_backplane
 * {operation}`), when telemetry is full.
 */
export function withTracedEventStore(options: HttpOptions, telemetry: RequestTelemetry | undefined): HttpOptions {
  if (!telemetry?.recording) return options;
  // Without sessions no event store is used: the transport drops it.
  const eventStore = options.eventStore ?? (options.sessions === false ? undefined : new InMemoryEventStore());
  const { sessionBackplane } = options;
  return {
    ...options,
    eventStore: eventStore && traced(eventStore, telemetry, 'event_store', 'mcpkit.event_store.operation', TRACED),
    sessionBackplane:
      sessionBackplane && traced(sessionBackplane, telemetry, 'session_backplane', 'mcpkit.session_backplane.operation', BACKPLANE),
  };
}
