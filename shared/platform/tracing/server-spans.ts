import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { isTracingStarted } from './tracing-state';

/** Probes and scrapes: a span for each would outnumber the requests worth tracing. */
const UNTRACED_PATHS = /^\/(healthz|readyz|livez|metrics)(\?|$)/;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The route template a request matched (`/v1/jobs/{id}`), known once it is answered; undefined when none did. */
export type RouteOf = (res: ServerResponse) => string | undefined;

/**
 * The API's server spans: `listener` run inside a span per request, continued from the request's
 * `traceparent`/`tracestate` (W3C trace context), ended when the answer is sent or the connection closes.
 * When it ends, the span is named `<METHOD> <route template>` and records `http.route` (from `routeOf`, the
 * label the request's routing chose); a request that matched no route is named by its method alone. It
 * records the method, the scheme and the status, and nothing of the request's target: no path (a path holds
 * ids, such as a job's or a consent request's, and whatever text a caller puts there), no query (OAuth's
 * `state` and `code` travel there), no headers, never the client's address. When tracing is off,
 * `listener` itself is returned. Why by hand: docs/decisions/server-spans-by-hand.md.
 */
export function tracedRequests(listener: RequestListener, routeOf: RouteOf): RequestListener {
  if (!isTracingStarted()) return listener;
  const tracer = trace.getTracer('connector-http');
  return (req, res) => {
    if (UNTRACED_PATHS.test(req.url ?? '/')) return listener(req, res);
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) endWithAnswer(span, method, res, routeOf);
    context.with(trace.setSpan(parent, span), listener, undefined, req, res);
  };
}

/** Records what the answer says on `span` and ends it: when the answer is sent, or when the connection closes first. */
function endWithAnswer(span: Span, method: string, res: ServerResponse, routeOf: RouteOf): void {
  span.setAttributes({ 'http.request.method': method, 'url.scheme': 'http' });
  const nameAfterRoute = () => {
    const route = routeOf(res);
    if (route === undefined) return;
    span.setAttribute('http.route', route);
    span.updateName(`${method} ${route}`);
  };
  res.once('finish', () => {
    nameAfterRoute();
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  res.once('close', () => {
    if (!span.isRecording()) return;
    nameAfterRoute();
    if (!res.writableFinished) {
      span.setAttribute('error.type', 'aborted');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
}
