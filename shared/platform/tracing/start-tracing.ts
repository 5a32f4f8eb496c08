import type { IncomingMessage } from 'node:http';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { loadTracingSettings } from '../config/tracing-settings';
import { RedactingExporter } from './redacting-exporter';
import { samplerFor } from './trace-sampler';
import { markTracingStarted } from './tracing-state';
import { traceRedisCommands } from './redis-command-spans';

/** How long shutdown waits for the last spans to be sent. */
const SHUTDOWN_FLUSH_MS = 1000;

/** A running tracing SDK. */
export interface Tracing {
  /** Sends the spans still buffered (waiting 1 s at most) and stops; called last at shutdown. */
  shutdown(): Promise<void>;
}

/** Probes and scrapes: a span for each would outnumber the requests worth tracing. */
const UNTRACED_PATHS = /^\/(healthz|readyz|livez|metrics)(\?|$)/;

/**
 * Starts tracing when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); otherwise does nothing at all (no SDK, nothing patched) and returns
 * undefined. Invalid tracing variables also leave it off here: the configuration, loaded next, refuses them
 * with the rest.
 *
 * It must run before `http` is loaded by anything else, because the HTTP instrumentation patches the module as
 * it is required: each process entry imports its tracing module first.
 *
 * - HTTP (`@opentelemetry/instrumentation-http`): a server span per request, continued from an incoming
 *   `traceparent`/`tracestate`; a client span per outgoing request made inside a trace (webhook deliveries,
 *   client metadata fetches), which sends `traceparent` on. No headers are recorded; URLs lose their query
 *   in the redacting exporter.
 * - Redis: a client span per command inside a trace, by command name only (redis-command-spans.ts, by hand:
 *   the maintained ioredis instrumentation does not patch ioredis 6).
 * - Express's own instrumentation is not used: the app routes every request through one middleware chain and
 *   the operations registry (api/middleware/match-operation.ts), so it would only add a span per middleware
 *   without knowing the route; the route is set on the server span by the registry's matcher instead.
 * - BullMQ traces itself through its `telemetry` option (queue-telemetry.ts).
 */
export function startTracing(env: NodeJS.ProcessEnv, defaultServiceName: string): Tracing | undefined {
  const settings = loadTracingSettings(env, []);
  if (!settings) return undefined;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName ?? defaultServiceName }))
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, read by the SDK as the specification says.
    .merge(detectResources({ detectors: [envDetector] }));
  // Both exporters read the endpoint, headers, timeout and compression from the standard variables.
  const exporter = settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const provider = new NodeTracerProvider({
    resource,
    sampler: samplerFor(settings),
    spanProcessors: [new BatchSpanProcessor(new RedactingExporter(exporter))],
  });
  // The global provider, the AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? ''),
        requireParentforOutgoingSpans: true,
      }),
    ],
  });
  traceRedisCommands();
  markTracingStarted();
  return {
    // Bounded: a collector that does not answer must not hold the process past its shutdown deadline.
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([provider.shutdown(), new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS)))]);
      clearTimeout(timer);
    },
  };
}
