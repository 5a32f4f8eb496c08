import { isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The fields that tie a log line to its span: `trace_id` and `span_id` of the span active where the line is
 * written (a pino mixin), none outside a span. A span that was not sampled still has its trace's id, which
 * is worth logging: a caller that did sample the trace finds these lines by it. A new object each time:
 * pino merges the line's own fields into what the mixin returns.
 */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
