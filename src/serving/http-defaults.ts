import type { Serving } from '../kernel/serving';
import type { HttpOptions } from '../transports/http/http-options';
import { withTracedEventStore } from '../transports/http/traced-event-store';

/** The options of an HTTP front door: the scale-out's shared stores under the caller's, the event store traced. */
export function httpOptionsOf(serving: Serving, options: HttpOptions): HttpOptions {
  const shared = serving.scaleOut?.httpDefaults();
  return withTracedEventStore(shared ? { ...shared, ...options } : options, serving.telemetry);
}
