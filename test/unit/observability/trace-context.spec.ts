import * as api from '@opentelemetry/api';
import { contextMeta, extractContext } from '../../../src/observability/trace-context';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('W3C trace context parsed by mcpkit', () => {
  const parent = (traceparent: string, from: 'meta' | 'headers' = 'meta') =>
    api.trace.getSpanContext(from === 'meta' ? extractContext(api, { traceparent }) : extractContext(api, undefined, { traceparent }));

  it('a valid traceparent (from _meta or a header) becomes the remote parent, sampled flag kept', () => {
    expect(parent(`00-${TRACE}-${SPAN}-01`)).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true });
    expect(parent(` 00-${TRACE.toUpperCase()}-${SPAN}-00 `, 'headers')).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 0 });
    // Upper case without blanks: the length of the canonical form, not its digits.
    expect(parent(`00-${TRACE}-${SPAN.toUpperCase()}-01`)).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1 });
  });

  it.each([
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with extra fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['non-hex digits', `00-${TRACE.slice(1)}g-${SPAN}-01`],
    ['a non-hex span id', `00-${TRACE}-${SPAN.slice(1)}x-01`],
    ['non-hex flags', `00-${TRACE}-${SPAN}-0g`],
    ['a separator out of place', `00-${TRACE}_${SPAN}-01`],
  ])('%s is ignored: no parent', (_, traceparent) => {
    expect(extractContext(api, { traceparent })).toBe(api.ROOT_CONTEXT);
  });

  it('a later version may carry more fields', () => {
    expect(parent(`01-${TRACE}-${SPAN}-01-more`)).toMatchObject({ traceId: TRACE, spanId: SPAN });
  });

  it('round trip: tracestate and baggage come back out as they went in', () => {
    const ctx = extractContext(api, { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'k=v', baggage: 'user=ann,bad' });
    expect(contextMeta(api, ctx)).toEqual({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'k=v', baggage: 'user=ann' });
  });
});

describe('the context of a remote parent', () => {
  const key = api.createContextKey('an application key');
  const remote = () => extractContext(api, { traceparent: `00-${TRACE}-${SPAN}-01` });

  it('behaves as an API context holding the parent span: values set on it keep the span, the span can be replaced or removed', () => {
    const ctx = remote();
    expect(ctx.getValue(key)).toBeUndefined();
    const extended = ctx.setValue(key, 'v');
    expect(extended.getValue(key)).toBe('v');
    expect(api.trace.getSpanContext(extended)).toMatchObject({ traceId: TRACE, spanId: SPAN, isRemote: true });
    expect(ctx.getValue(key)).toBeUndefined();
    const other = api.trace.wrapSpanContext({ traceId: TRACE, spanId: 'a'.repeat(16), traceFlags: 1 });
    expect(api.trace.getSpan(api.trace.setSpan(ctx, other))).toBe(other);
    expect(api.trace.getSpan(api.trace.deleteSpan(ctx))).toBeUndefined();
    expect(api.trace.getSpanContext(ctx)).toMatchObject({ spanId: SPAN });
  });

  it('holds baggage beside the parent', () => {
    const ctx = extractContext(api, { traceparent: `00-${TRACE}-${SPAN}-01`, baggage: 'user=ann' });
    expect(api.propagation.getBaggage(ctx)?.getEntry('user')?.value).toBe('ann');
    expect(api.trace.getSpanContext(ctx)).toMatchObject({ traceId: TRACE, spanId: SPAN });
  });

  it('a child span started in it is the child of the remote parent', () => {
    const tracer = new BasicTracerProvider().getTracer('t');
    const child = tracer.startSpan('child', {}, remote()) as unknown as ReadableSpan;
    expect(child.spanContext().traceId).toBe(TRACE);
    expect(child.parentSpanContext?.spanId).toBe(SPAN);
  });
});
