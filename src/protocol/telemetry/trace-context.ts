import type * as Api from '@opentelemetry/api';

type Carrier = Record<string, unknown>;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

function header(headers: Readonly<Record<string, string | string[] | undefined>> | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The remote context of a request: W3C trace context from `params._meta` (2026-07-28 keys
 * traceparent, tracestate, baggage), else from the HTTP headers. Parsed here, so no propagator
 * needs to be registered.
 */
export function extractContext(api: typeof Api, meta: Carrier | undefined, headers?: Readonly<Record<string, string | string[] | undefined>>): Api.Context {
  const fromMeta = typeof meta?.traceparent === 'string';
  const get = (key: string): string | undefined => (fromMeta ? (typeof meta![key] === 'string' ? (meta![key] as string) : undefined) : header(headers, key));
  let ctx = api.ROOT_CONTEXT;
  const match = TRACEPARENT.exec(get('traceparent')?.trim().toLowerCase() ?? '');
  // The pattern checked the hex digits: only the all-zero ids remain invalid.
  if (match && match[1] !== 'ff' && !(match[1] === '00' && match[5]) && match[2] !== ZERO_TRACE && match[3] !== ZERO_SPAN) {
    const state = get('tracestate');
    ctx = api.trace.setSpanContext(ctx, {
      traceId: match[2],
      spanId: match[3],
      traceFlags: parseInt(match[4], 16) & 1,
      isRemote: true,
      traceState: state ? api.createTraceState(state) : undefined,
    });
  }
  const baggage = get('baggage');
  if (baggage) {
    const entries: Record<string, Api.BaggageEntry> = {};
    for (const item of baggage.split(',')) {
      const [pair] = item.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      try {
        entries[decodeURIComponent(pair.slice(0, eq).trim())] = { value: decodeURIComponent(pair.slice(eq + 1).trim()) };
      } catch {
        // a malformed entry is left out
      }
    }
    if (Object.keys(entries).length > 0) ctx = api.propagation.setBaggage(ctx, api.propagation.createBaggage(entries));
  }
  return ctx;
}

/** The `_meta` keys that carry `ctx` to the client. */
export function contextMeta(api: typeof Api, ctx: Api.Context): Record<string, string> {
  const out: Record<string, string> = {};
  const span = api.trace.getSpanContext(ctx);
  if (span && api.isSpanContextValid(span)) {
    out.traceparent = `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & 1).toString(16)}`;
    const state = span.traceState?.serialize();
    if (state) out.tracestate = state;
  }
  const baggage = api.propagation.getBaggage(ctx);
  const entries = baggage?.getAllEntries() ?? [];
  if (entries.length > 0) out.baggage = entries.map(([k, e]) => `${encodeURIComponent(k)}=${encodeURIComponent(e.value)}`).join(',');
  return out;
}
