import { makeValidator, str } from 'envalid';
import { type ConfigProblem, ownReason, readSettings, type SettingValues, setting } from './settings-table';

/** The samplers `OTEL_TRACES_SAMPLER` may name (the OpenTelemetry specification's built-in ones). */
export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;

/** How spans are sent: OTLP over HTTP, as protobuf or as JSON (gRPC is not offered). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/** An absolute http(s) URL; the message never echoes the input (it may carry credentials). */
const otlpEndpoint = makeValidator<string>((input) => {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new Error('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be an absolute http or https URL');
  return input;
});

/** `key=value` pairs separated by commas, as the specification writes headers; never echoed (they hold API keys). */
const otlpHeaders = makeValidator<string>((input) => {
  const pairs = input.split(',').filter((pair) => pair.trim() !== '');
  if (pairs.some((pair) => !/^\s*[^=\s]+\s*=/.test(pair))) throw new Error('must be key=value pairs separated by commas');
  return input;
});

/** A number from 0 to 1. */
const ratio = makeValidator<number>((input) => {
  const value = Number(input);
  if (input.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1) throw new Error('must be a number from 0 to 1');
  return value;
});

/**
 * The tracing variables and their rules (listed in docs/configuration.md), where each lands in
 * {@link TracingSettings}. The exporter reads the endpoints and headers itself, as the specification says.
 */
export const TRACING_SETTINGS = {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`: the collector's base URL. */
  endpoint: setting('OTEL_EXPORTER_OTLP_ENDPOINT', otlpEndpoint({ default: undefined })),
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the traces URL itself. */
  tracesEndpoint: setting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', otlpEndpoint({ default: undefined })),
  /** `OTEL_EXPORTER_OTLP_PROTOCOL`. */
  protocol: setting('OTEL_EXPORTER_OTLP_PROTOCOL', str({ choices: OTLP_PROTOCOLS, default: 'http/protobuf' })),
  /** `OTEL_EXPORTER_OTLP_HEADERS`: checked here, sent by the exporter. */
  headers: setting('OTEL_EXPORTER_OTLP_HEADERS', otlpHeaders({ default: undefined })),
  /** `OTEL_SERVICE_NAME`, or undefined for the process's own default (`connector-api`, `connector-worker`). */
  serviceName: setting('OTEL_SERVICE_NAME', str({ default: undefined })),
  /** `OTEL_RESOURCE_ATTRIBUTES`: read by the SDK's resource detector. */
  resourceAttributes: setting('OTEL_RESOURCE_ATTRIBUTES', str({ default: undefined })),
  /** `OTEL_TRACES_SAMPLER`. */
  sampler: setting('OTEL_TRACES_SAMPLER', str({ choices: TRACE_SAMPLERS, default: 'parentbased_always_on' })),
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the ratio samplers, 0 to 1. */
  samplerRatio: setting('OTEL_TRACES_SAMPLER_ARG', ratio({ default: 1 })),
};

/** Tracing as configured; absent when no OTLP endpoint is set (tracing is then off). */
export type TracingSettings = SettingValues<typeof TRACING_SETTINGS>;

/**
 * Reads the tracing variables. Problems are added to `problems` (names and our own reasons only). Tracing is on
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; otherwise the result is
 * undefined and the other variables are still checked, so a typo is refused before it matters.
 */
export function loadTracingSettings(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): TracingSettings | undefined {
  const before = problems.length;
  // An empty value is unset, as the OpenTelemetry SDKs read it.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const { values } = readSettings(present, TRACING_SETTINGS, problems, ownReason('must be one of the documented values'));
  if (problems.length > before) return undefined;
  return values.endpoint || values.tracesEndpoint ? values : undefined;
}
