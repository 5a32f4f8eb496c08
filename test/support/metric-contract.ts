import { Metrics } from '../../shared/platform/metrics/metrics';

/** A metric as operators scrape it: its type and labels, as the table of docs/operating.md ("Metrics") lists them. */
export interface ContractMetric {
  type: 'counter' | 'gauge' | 'histogram';
  labels: readonly string[];
}

/** The contract table, written out independently of shared/platform/metrics so a renamed metric fails the tests. */
export const CONTRACT_METRICS: Readonly<Record<string, ContractMetric>> = {
  connector_http_requests_total: { type: 'counter', labels: ['method', 'route', 'status'] },
  connector_http_request_duration_seconds: { type: 'histogram', labels: ['method', 'route'] },
  connector_tokens_issued_total: { type: 'counter', labels: [] },
  connector_connections_revoked_total: { type: 'counter', labels: [] },
  connector_auth_failures_total: { type: 'counter', labels: ['reason'] },
  connector_jobs_submitted_total: { type: 'counter', labels: ['operation'] },
  connector_jobs_replayed_total: { type: 'counter', labels: ['operation'] },
  connector_idempotency_conflicts_total: { type: 'counter', labels: ['operation'] },
  connector_credits_charged_total: { type: 'counter', labels: ['operation'] },
  connector_jobs_over_budget_total: { type: 'counter', labels: ['operation'] },
  connector_jobs_completed_total: { type: 'counter', labels: ['operation', 'outcome'] },
  connector_jobs_canceled_total: { type: 'counter', labels: ['operation'] },
  connector_credits_refunded_total: { type: 'counter', labels: ['operation', 'reason'] },
  connector_credits_granted_total: { type: 'counter', labels: [] },
  connector_x402_payments_total: { type: 'counter', labels: ['outcome'] },
  connector_credits_captured_total: { type: 'counter', labels: ['operation'] },
  connector_credits_released_total: { type: 'counter', labels: ['operation', 'reason'] },
  connector_job_duration_seconds: { type: 'histogram', labels: ['operation'] },
  connector_job_wait_seconds: { type: 'histogram', labels: ['operation'] },
  connector_queue_jobs: { type: 'gauge', labels: ['state'] },
  connector_redis_up: { type: 'gauge', labels: [] },
  connector_redis_errors_total: { type: 'counter', labels: [] },
  connector_mcp_tool_calls_total: { type: 'counter', labels: ['tool', 'outcome'] },
  connector_webhook_deliveries_total: { type: 'counter', labels: ['type', 'outcome'] },
  connector_previous_secret_uses_total: { type: 'counter', labels: ['secret'] },
  connector_previous_secret_configured: { type: 'gauge', labels: ['secret'] },
};

/** The HTTP latency buckets the issue asks for: 1 ms to 10 s. */
export const HTTP_BUCKETS = ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];

/** Queue states (`connector_queue_jobs{state}`) and job outcomes (`connector_jobs_completed_total{outcome}`). */
export const QUEUE_STATES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export const JOB_OUTCOMES = ['succeeded', 'failed', 'canceled'] as const;
/** Why credits were given back (`connector_credits_refunded_total{reason}`). */
export const REFUND_REASONS = ['canceled', 'failed'] as const;
/** Why a hold's credits went back to the balance (`connector_credits_released_total{reason}`). */
export const RELEASE_REASONS = ['canceled', 'failed'] as const;

/** Webhook event types and delivery outcomes (`connector_webhook_deliveries_total{type,outcome}`, issue 19). */
export const WEBHOOK_EVENT_TYPES = [
  'job.succeeded',
  'job.failed',
  'job.canceled',
  'connection.created',
  'connection.revoked',
  'credits.granted',
  'credits.low',
] as const;
export const WEBHOOK_OUTCOMES = ['delivered', 'failed', 'abandoned', 'gone', 'skipped'] as const;

/** Auth failure reasons (`connector_auth_failures_total{reason}`) of a 401. */
export const UNAUTHORIZED_REASONS = ['missing', 'invalid', 'expired', 'revoked', 'bad_link_secret'] as const;
/** Every reason: the 401s, and the 429 to an address over its failed-authentication budget. */
export const AUTH_FAILURE_REASONS = [...UNAUTHORIZED_REASONS, 'too_many_failures'] as const;

/** The names a histogram or summary family exposes as samples. */
export function sampleNames(family: string, type: string): string[] {
  if (type === 'histogram') return [`${family}_bucket`, `${family}_sum`, `${family}_count`];
  if (type === 'summary') return [family, `${family}_sum`, `${family}_count`];
  return [family];
}

/** Family name → type, for every metric a real `Metrics` registry (API and worker alike) exports. */
export async function exportedFamilies(): Promise<Map<string, string>> {
  const metrics = new Metrics();
  const families = await metrics.registry.getMetricsAsJSON();
  return new Map(families.map((family) => [family.name, String(family.type)]));
}

/** Every sample name a real `Metrics` registry can expose (histograms with `_bucket`, `_sum`, `_count`). */
export async function exportedSampleNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const [family, type] of await exportedFamilies()) for (const name of sampleNames(family, type)) names.add(name);
  return names;
}
