import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets from 1 ms to 10 s. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Job run and wait times: from 10 ms to 10 minutes. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The service's Prometheus metrics, on a registry of their own (one per process, so tests can run several
 * apps in one process). Names and labels are fixed by the contract: dashboards and alerts depend on them.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'connector_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'connector_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly tokensIssued = new Counter({
    name: 'connector_tokens_issued_total',
    help: 'Tokens minted through /v1/link.',
    registers: [this.registry],
  });
  readonly connectionsRevoked = new Counter({
    name: 'connector_connections_revoked_total',
    help: 'Connections revoked through /v1/link/revoke.',
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: 'connector_auth_failures_total',
    help: 'Refused credentials, by reason (missing, invalid, expired, revoked, bad_link_secret; too_many_failures: 429 to an address over its failure budget).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly mcpToolCalls = new Counter({
    name: 'connector_mcp_tool_calls_total',
    help: 'MCP tool calls, by tool and outcome (ok, error).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly jobsSubmitted = counter(this.registry, 'connector_jobs_submitted_total', 'Paid jobs accepted (new, not replays).');
  readonly jobsReplayed = counter(this.registry, 'connector_jobs_replayed_total', 'Idempotent retries answered with an existing job.');
  readonly idempotencyConflicts = counter(
    this.registry,
    'connector_idempotency_conflicts_total',
    'Idempotency keys reused with another payload (422).',
  );
  readonly jobsOverBudget = counter(
    this.registry,
    'connector_jobs_over_budget_total',
    'New paid jobs refused with 402: the daily credit budget was used up.',
  );
  readonly creditsCharged = counter(this.registry, 'connector_credits_charged_total', 'Credits charged for accepted jobs.');
  readonly jobsCompleted = new Counter({
    name: 'connector_jobs_completed_total',
    help: 'Jobs that reached a final state, by operation and outcome (succeeded, failed, canceled).',
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly jobsCanceled = counter(this.registry, 'connector_jobs_canceled_total', 'Jobs that ended canceled by their owner.');
  readonly creditsRefunded = new Counter({
    name: 'connector_credits_refunded_total',
    help: 'Credits given back, by operation and reason (canceled, failed).',
    labelNames: ['operation', 'reason'] as const,
    registers: [this.registry],
  });
  readonly creditsGranted = new Counter({
    name: 'connector_credits_granted_total',
    help: 'Credits granted to subjects in prepaid billing (POST /v1/link/credits; adjustments, which take credits away, are not counted).',
    registers: [this.registry],
  });
  readonly x402Payments = new Counter({
    name: 'connector_x402_payments_total',
    help: "x402 payments of paid calls by outcome: settled (a grant to the payer), refused (402, nothing held), account (answered from the payer's account, its credits or a replay of its key: nothing settled).",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly creditsCaptured = counter(
    this.registry,
    'connector_credits_captured_total',
    "Credits captured from paid jobs' holds in prepaid billing (kept: a success, or a cancel's charge).",
  );
  readonly creditsReleased = new Counter({
    name: 'connector_credits_released_total',
    help: "Credits of paid jobs' holds given back to the balance in prepaid billing, by operation and reason (canceled, failed).",
    labelNames: ['operation', 'reason'] as const,
    registers: [this.registry],
  });
  readonly creditsOrphaned = new Counter({
    name: 'connector_credits_orphaned_total',
    help: 'Credits of holds released by the orphan sweep (prepaid billing, x402 payers): their job was never enqueued (HOLD_ORPHAN_SECONDS).',
    registers: [this.registry],
  });
  readonly creditsExpired = new Counter({
    name: 'connector_credits_expired_total',
    help: 'Credits of grants that expired unspent in prepaid billing (the expire entries the expiry sweep made).',
    registers: [this.registry],
  });
  readonly creditsVoided = new Counter({
    name: 'connector_credits_voided_total',
    help: 'Credits of grants voided by the dashboard in prepaid billing (POST /v1/link/credits/void; the unspent rest).',
    registers: [this.registry],
  });
  readonly spendsRefused = counter(
    this.registry,
    'connector_spends_refused_total',
    'New paid jobs refused with 402 insufficient-credits in prepaid billing: the balance was below the price.',
  );
  /** Where the oldest open hold's acceptance is read from on scrape; set in prepaid billing. */
  private oldestHold?: () => Promise<string | undefined>;
  readonly oldestHoldAge = new Gauge({
    name: 'connector_credit_oldest_hold_seconds',
    help:
      'Age of the oldest hold the orphan sweep has neither matched to its job nor released (0: none), read on scrape; ' +
      'above HOLD_ORPHAN_SECONDS plus a sweep, the sweep is not keeping up.',
    registers: [this.registry],
    collect: async () => {
      if (!this.oldestHold) return;
      try {
        const at = await this.oldestHold();
        this.oldestHoldAge.set(at === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(at)) / 1000));
      } catch {
        // A failed read keeps the last value; connector_redis_up tells the operator why.
      }
    },
  });
  readonly jobDuration = histogram(this.registry, 'connector_job_duration_seconds', 'Time from a job starting to it finishing.');
  readonly jobWait = histogram(this.registry, 'connector_job_wait_seconds', 'Time from a job being accepted to its first start.');
  /** Where queue depth is read from on scrape; set once the backend exists. */
  private queueCounts?: () => Promise<Readonly<Record<string, number>>>;
  readonly queueJobs = new Gauge({
    name: 'connector_queue_jobs',
    help: 'Jobs in the queue by state, read on scrape.',
    labelNames: ['state'] as const,
    registers: [this.registry],
    collect: async () => {
      if (!this.queueCounts) return;
      try {
        const current = await this.queueCounts();
        for (const [state, count] of Object.entries(current)) this.queueJobs.set({ state }, count);
      } catch {
        // A failed read keeps the last values; connector_redis_up tells the operator why.
      }
    },
  });
  readonly webhookDeliveries = new Counter({
    name: 'connector_webhook_deliveries_total',
    help:
      'Webhook delivery attempts, by event type and outcome (delivered: 2xx; failed: another attempt follows; abandoned: the last attempt ' +
      'failed; gone: the receiver answered 410; skipped: what the event announced never became true, nothing sent).',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly redisUp = new Gauge({
    name: 'connector_redis_up',
    help: '1 when Redis answers, 0 when not (absent in memory mode).',
    registers: [this.registry],
  });
  readonly redisErrors = new Counter({
    name: 'connector_redis_errors_total',
    help: 'Redis connection and command errors.',
    registers: [this.registry],
  });
  readonly previousSecretUses = new Counter({
    name: 'connector_previous_secret_uses_total',
    help:
      'Credentials accepted only thanks to a previous secret during a rotation, by secret (connector: tokens and other ' +
      'values signed with CONNECTOR_SECRET_PREVIOUS; link: LINK_SECRET_PREVIOUS). Once it stops rising, the previous value can go.',
    labelNames: ['secret'] as const,
    registers: [this.registry],
  });
  readonly previousSecretConfigured = new Gauge({
    name: 'connector_previous_secret_configured',
    help: '1 while a previous secret is configured (a rotation overlap is active), by secret (connector, link, webhook); 0 otherwise.',
    labelNames: ['secret'] as const,
    registers: [this.registry],
  });

  constructor({ defaultMetrics = true }: { defaultMetrics?: boolean } = {}) {
    if (defaultMetrics) collectDefaultMetrics({ register: this.registry });
    // prom-client starts an unlabelled gauge at 0; a process without Redis would then report Redis as down
    // (and fire the Redis-down alert). The sample only appears once a Redis client sets it.
    this.redisUp.remove({});
    // Both series exist from the start, so the rotation runbook's `increase(...)` reads 0, not "no data".
    for (const secret of ['connector', 'link'] as const) this.previousSecretUses.inc({ secret }, 0);
  }

  /** Which previous secrets this process was given: one gauge sample per secret, 1 or 0. */
  recordPreviousSecrets(configured: Readonly<Record<'connector' | 'link' | 'webhook', boolean>>): void {
    for (const [secret, on] of Object.entries(configured)) this.previousSecretConfigured.set({ secret }, on ? 1 : 0);
  }

  /**
   * Reads queue depth on each scrape, one gauge sample per state the reader answers (the job statuses);
   * `counts` must be cheap (one round trip). The states come from the reader, so the platform layer does not
   * depend on the domain's list of statuses.
   */
  observeQueue(counts: () => Promise<Readonly<Record<string, number>>>): void {
    this.queueCounts = counts;
  }

  /** Reads the oldest open hold's acceptance (ISO 8601; undefined: none) on each scrape, for its age gauge. */
  observeOldestHold(read: () => Promise<string | undefined>): void {
    this.oldestHold = read;
  }

  /** Records a job's first start, `waitedMs` after it was accepted; a time that is not a number is skipped. */
  recordJobWait(operation: string, waitedMs: number): void {
    if (Number.isFinite(waitedMs)) this.jobWait.observe({ operation }, Math.max(0, waitedMs) / 1000);
  }

  /**
   * Counts a job's final outcome and records its run time, `ranMs` from its first start to its end. The
   * outcome is counted even when the time is not a number (then only the time is skipped).
   */
  recordJobEnd(operation: string, outcome: 'succeeded' | 'failed' | 'canceled', ranMs: number): void {
    this.jobsCompleted.inc({ operation, outcome });
    if (outcome === 'canceled') this.jobsCanceled.inc({ operation });
    if (Number.isFinite(ranMs)) this.jobDuration.observe({ operation }, Math.max(0, ranMs) / 1000);
  }

  /** Counts a job's hold as it ended: what was captured and what was released; called once per hold, by whoever ended it. */
  recordSettlement(operation: string, settled: { captured: number; released: number }, reason: 'canceled' | 'failed'): void {
    if (settled.captured > 0) this.creditsCaptured.inc({ operation }, settled.captured);
    if (settled.released > 0) this.creditsReleased.inc({ operation, reason }, settled.released);
  }

  /** Counts credits given back for one job; called once per refund, by whoever made it. */
  recordRefund(operation: string, reason: 'canceled' | 'failed', credits: number): void {
    if (credits > 0) this.creditsRefunded.inc({ operation, reason }, credits);
  }

  /**
   * The end of a job's hold (prepaid billing): what it captured, and what it released for `reason` (a
   * release without one, which a settlement never makes, would count as `failed`).
   */
  recordHoldSettled(operation: string, captured: number, released: number, reason?: 'canceled' | 'failed'): void {
    if (captured > 0) this.creditsCaptured.inc({ operation }, captured);
    if (released > 0) this.creditsReleased.inc({ operation, reason: reason ?? 'failed' }, released);
  }
}

function counter(registry: Registry, name: string, help: string): Counter<'operation'> {
  return new Counter({ name, help, labelNames: ['operation'] as const, registers: [registry] });
}

function histogram(registry: Registry, name: string, help: string): Histogram<'operation'> {
  return new Histogram({ name, help, labelNames: ['operation'] as const, buckets: JOB_BUCKETS, registers: [registry] });
}
