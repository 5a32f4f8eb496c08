/**
 * Whether this process exports traces: set once by startTracing, at the process entry, before anything that
 * asks. While it is false the code paths that would record spans cost nothing beyond the OpenTelemetry API's
 * no-op calls: the logger adds no fields and the queues get no telemetry.
 */
let started = false;

/** Records that the tracing SDK is running in this process. */
export function markTracingStarted(): void {
  started = true;
}

/** True once the tracing SDK runs in this process. */
export function isTracingStarted(): boolean {
  return started;
}
