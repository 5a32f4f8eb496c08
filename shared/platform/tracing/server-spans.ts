import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isTracingStarted } from './tracing-state';

/** Probes and scrapes: a span for each would outnumber the requests worth tracing. */
const UNTRACED_PATHS = /^\/(healthz|readyz|livez|metrics)(\?|$)/;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The API's server spans: `listener` run inside a span per request, continued from the request's
 * `traceparent`/`tracestate` (W3C trace context), ended when the answer is sent or the connection closes. The
 * span is named `<METHOD> <route template>` by the registry's matcher (spans.ts `nameServerSpan`) and records
 * the method, the path without its query (OAuth's `state` and `code` travel there), the route and the status;
 * never headers or the client's address. When tracing is off, `listener` itself is returned.
 *
 * By hand, with the OpenTelemetry API, rather than with `@opentelemetry/instrumentation-http`'s incoming side:
 * that one cost the API 76 to 99 % more CPU per request even at a sampling ratio of 0 (bench/README.md,
 * "Tracing"), and 50 % on a bare server with every request ignored, since it wraps every request's and
 * response's emitters whatever the sampler decides. Here a sampled-out request costs one extraction, a
 * non-recording span and entering its context, which its children need to be sampled out too. The
 * instrumentation still does the outgoing side (webhook deliveries), with `traceparent` sent on.
 */
export function tracedRequests(listener: RequestListener): RequestListener {
  if (!isTracingStarted()) return listener;
  const tracer = trace.getTracer('connector-http');
  return (req, res) => {
    const url = req.url ?? '/';
    if (UNTRACED_PATHS.test(url)) return listener(req, res);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      const query = url.indexOf('?');
      span.setAttributes({ 'http.request.method': method, 'url.path': query === -1 ? url : url.slice(0, query), 'url.scheme': 'http' });
      const end = () => {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      };
      res.once('finish', end);
      res.once('close', () => {
        if (!res.writableFinished) {
          span.setAttribute('error.type', 'aborted');
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        if (span.isRecording()) span.end();
      });
    }
    context.with(trace.setSpan(parent, span), listener, undefined, req, res);
  };
}
