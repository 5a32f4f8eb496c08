import { INVALID_SPANID, INVALID_TRACEID, trace } from '@opentelemetry/api';

/**
 * The fields that tie a log line to its span: `trace_id` and `span_id` of the span active where the line is
 * written (a pino mixin), none outside a span. A span that was not sampled still has its trace's id, which
 * is worth logging: a caller that did sample the trace finds these lines by it. A new object each time:
 * pino merges the line's own fields into what the mixin returns.
 *
 * Ids made by the SDK or accepted by its propagator are well formed; the only invalid context met here is
 * the API's all-zero one, so that is all that is checked (`isSpanContextValid` runs two regular expressions
 * for every line).
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  if (traceId === INVALID_TRACEID || spanId === INVALID_SPANID) return {};
  return { trace_id: traceId, span_id: spanId };
}
