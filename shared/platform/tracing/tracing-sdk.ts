import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from '../config/tracing-settings';
import { withinGrace } from '../lifecycle/within-grace';
import { RedactingExporter } from './redacting-exporter';
import { traceRedisCommands } from './redis-command-spans';
import { samplerFor } from './trace-sampler';

/** How long shutdown waits for the last spans to be sent. */
const SHUTDOWN_FLUSH_MS = 1000;

/**
 * Starts the OpenTelemetry SDK with `settings` (start-tracing.ts decides whether to, and loads this module only
 * then, so that a process without tracing never loads the SDK):
 *
 * - HTTP out (`@opentelemetry/instrumentation-http`): a client span per outgoing request made inside a trace
 *   (webhook deliveries, client metadata fetches), which sends `traceparent` on; no headers recorded, the URL
 *   reduced to its origin by the redacting exporter. HTTP in: the API's server spans (server-spans.ts).
 * - Redis: a client span per command inside a recorded span, by command name only (redis-command-spans.ts, by
 *   hand: the maintained ioredis instrumentation records command arguments and did not patch the ioredis 6 used
 *   before; docs/decisions/redis-command-spans-by-hand.md).
 * - Express's own instrumentation is not used: the app routes every request through one middleware chain and
 *   the operations registry (api/middleware/match-operation.ts), so it would only add a span per middleware
 *   without knowing the route; the route is set on the server span by the registry's matcher instead.
 * - BullMQ traces itself through its `telemetry` option (queue-telemetry.ts).
 */
export function startSdk(settings: TracingSettings, defaultServiceName: string): { shutdown(): Promise<void> } {
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
      // Outgoing requests only: the API's server spans are server-spans.ts's (see there why).
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, requireParentforOutgoingSpans: true }),
    ],
  });
  traceRedisCommands();
  return {
    // Bounded: a collector that does not answer must not hold the process past its shutdown deadline.
    shutdown: async () => {
      await withinGrace(provider.shutdown(), SHUTDOWN_FLUSH_MS);
    },
  };
}
