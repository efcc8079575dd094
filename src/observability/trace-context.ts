import type * as Api from '@opentelemetry/api';

type Carrier = Record<string, unknown>;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** Case and surrounding blanks tolerated; the ids are lower-cased once matched. */
const TRACEPARENT = /^\s*([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*?)?\s*$/i;

/** True when `value[from, to)` is lower-case hex digits. */
function lowerHex(value: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * The form W3C trace context writes (version 00, lower case, nothing around): read by position, nothing
 * to lower-case. Checked by hand: the pattern it replaces took longer than the rest of the parse.
 */
function canonical(value: string): boolean {
  return (
    value.length === 55 &&
    value.charCodeAt(0) === 48 &&
    value.charCodeAt(1) === 48 &&
    value.charCodeAt(2) === 45 &&
    value.charCodeAt(35) === 45 &&
    value.charCodeAt(52) === 45 &&
    lowerHex(value, 3, 35) &&
    lowerHex(value, 36, 52) &&
    lowerHex(value, 53, 55)
  );
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** One trace context key, from `_meta` when it carries a traceparent, else from the HTTP headers. */
function read(meta: Carrier | undefined, headers: Headers | undefined, key: string): string | undefined {
  if (meta) {
    const value = meta[key];
    return typeof value === 'string' ? value : undefined;
  }
  const value = headers?.[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The remote context of a request: W3C trace context from `params._meta` (2026-07-28 keys
 * traceparent, tracestate, baggage), else from the HTTP headers. Parsed here, so no propagator
 * needs to be registered.
 */
export function extractContext(api: typeof Api, meta: Carrier | undefined, headers?: Headers): Api.Context {
  const from = typeof meta?.traceparent === 'string' ? meta : undefined;
  const traceparent = read(from, headers, 'traceparent');
  let ctx = api.ROOT_CONTEXT;
  const parent = traceparent === undefined ? undefined : parseTraceparent(traceparent);
  if (parent) {
    const state = read(from, headers, 'tracestate');
    if (state) parent.traceState = api.createTraceState(state);
    ctx = api.trace.setSpanContext(ctx, parent);
  }
  const baggage = read(from, headers, 'baggage');
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

/** True when a request carries W3C trace context (in `_meta`, else in its headers), read or not: see extractContext. */
export function carriesContext(meta: Carrier | undefined, headers: Headers | undefined): boolean {
  if (typeof meta?.traceparent === 'string') return true;
  return headers !== undefined && (headers.traceparent !== undefined || headers.baggage !== undefined);
}

/** The remote span context of a valid traceparent (its tracestate not yet read), else undefined. */
function parseTraceparent(value: string): Api.SpanContext | undefined {
  let traceId: string;
  let spanId: string;
  let flags: string;
  if (canonical(value)) {
    traceId = value.slice(3, 35);
    spanId = value.slice(36, 52);
    flags = value.slice(53);
  } else {
    const match = TRACEPARENT.exec(value);
    // The pattern checked the hex digits: version ff, and extra fields in version 00, remain invalid.
    if (!match || match[1].toLowerCase() === 'ff' || (match[1] === '00' && match[5])) return undefined;
    traceId = match[2].toLowerCase();
    spanId = match[3].toLowerCase();
    flags = match[4];
  }
  // So do the all-zero ids.
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & 1, isRemote: true, traceState: undefined };
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
