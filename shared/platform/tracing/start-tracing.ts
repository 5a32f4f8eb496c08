import { loadTracingSettings } from '../config/tracing-settings';
import { markTracingStarted } from './tracing-state';

/** A running tracing SDK. */
export interface Tracing {
  /** Sends the spans still buffered (waiting 1 s at most) and stops; called last at shutdown. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and returns it; otherwise returns undefined having done nothing at
 * all: the SDK is not even loaded (it is required here, synchronously, only when tracing is on), nothing is
 * patched, and the code that records spans meets the OpenTelemetry API's no-op tracer. Invalid tracing
 * variables also leave it off here: the configuration, loaded next, refuses them with the rest.
 *
 * It must run before `http` is loaded by anything else, because the HTTP instrumentation patches the module as
 * it is required: each process entry imports its tracing module first (api/tracing.ts, worker/tracing.ts,
 * scripts/dev.ts).
 */
export function startTracing(env: NodeJS.ProcessEnv, defaultServiceName: string): Tracing | undefined {
  const settings = loadTracingSettings(env, []);
  if (!settings) return undefined;
  const { startSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  const sdk = startSdk(settings, defaultServiceName);
  markTracingStarted();
  return sdk;
}
