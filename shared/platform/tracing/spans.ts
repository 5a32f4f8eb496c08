import { type Attributes, type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** The tracer of the connector's own spans (the processor, MCP tool calls). */
const tracer = () => trace.getTracer('connector');

/**
 * Runs `work` inside a new span (a child of the active one, or of `parent`), ending it when `work` settles
 * and marking it failed when `work` throws; the error's message is not recorded, only its type. Without the
 * SDK this is the API's no-op span: `work` runs as is.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', error instanceof Error ? error.constructor.name : typeof error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
