import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { createBackend } from '../shared/adapters/create-backend';
import { httpFacilitator } from '../shared/adapters/x402/http-facilitator';
import type { Operation } from '../shared/contract/operations/operation';
import { paidJobsOf } from '../shared/contract/operations/paid-jobs';
import { OPERATIONS } from '../shared/contract/operations/registry';
import type { CreditService } from '../shared/domain/credits/credit-service';
import { HoldSweeper, sweepIntervalMs } from '../shared/domain/jobs/hold-sweeper';
import type { Job } from '../shared/domain/jobs/job';
import { loadJobSettings } from '../shared/domain/jobs/job-settings';
import { JobViewer } from '../shared/domain/jobs/job-viewer';
import type { JobPolicies, ProcessorMap } from '../shared/domain/jobs/processor';
import { buildPolicies, buildProcessors } from '../shared/domain/jobs/processor';
import type { CimdFetchOptions } from '../shared/domain/oauth/cimd-fetcher';
import { devConsentAllowed, withDevConsent } from '../shared/domain/oauth/dev-consent';
import { createServices } from '../shared/domain/services';
import { assertKnownEventTypes, eventCatalogue } from '../shared/domain/webhooks/event-catalogue';
import type { EventQueue } from '../shared/domain/webhooks/event-queue';
import type { Config } from '../shared/platform/config/config';
import { listen } from '../shared/platform/lifecycle/listen';
import { closeServer, onTerminate } from '../shared/platform/lifecycle/shutdown';
import { Metrics } from '../shared/platform/metrics/metrics';
import { createMetricsServer } from '../shared/platform/metrics/metrics-server';
import { announceSecretOverlap } from '../shared/platform/secrets/secret-overlap';
import { tracedRequests } from '../shared/platform/tracing/server-spans';
import type { Tracing } from '../shared/platform/tracing/start-tracing';
import { createApp } from './app';
import { createApiServer } from './http/http-server';
import { matchedRoute } from './http/locals';

/** A listening API with its metrics listener. */
export interface RunningApi {
  port: number;
  metricsPort: number;
  /** The address both listeners are bound to (`::` when every interface). */
  host: string;
  /**
   * The shutdown sequence: `/readyz` turns 503 and every response says `Connection: close`; after
   * `shutdownDelayMs` it stops accepting and waits for in-flight requests (cut after the grace period), then
   * drains jobs, and closes the backend only after the last response.
   */
  close(): Promise<void>;
}

/**
 * Something that consumes the Redis job queue inside the API's process, built from the API's processors and
 * metrics. The entry that runs API and worker together (`npm run dev`, the tests) supplies it, so the API
 * itself never depends on the worker.
 */
export type InProcessJobConsumer = (parts: {
  processors: ProcessorMap;
  policies: JobPolicies;
  metrics: Metrics;
  events: EventQueue;
  /** How a webhook event shows its job (the operations' event views). */
  jobView: (job: Job) => Job;
}) => {
  close(graceMs: number): Promise<void>;
};

/** Options for embedding the API (tests, or a template user with their own registry). */
export interface StartApiOptions {
  /** The operations registry; defaults to the built-in one. */
  operations?: readonly Operation[];
  /**
   * On Redis, also consume the job queue in this process (`npm run dev`, tests). `npm start` leaves it out:
   * in production the API only enqueues and worker processes run the jobs. The memory backend always runs
   * its jobs in-process, so it is not called there.
   */
  jobConsumer?: InProcessJobConsumer;
  /** Where the paid jobs' own variables are read from; default the process's environment (tests pass theirs). */
  jobSettingsEnv?: NodeJS.ProcessEnv;
  /** Tests only: lets the Client ID Metadata Document fetcher reach a local https server. */
  cimdFetch?: CimdFetchOptions;
  /** MCP: serve plain 2026-07-28 tool calls directly (default); false leaves every request to the SDK. */
  mcpDirectCalls?: boolean;
  /** The environment the paid jobs' own variables (`PaidJob.settings`) are read from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * `npm run dev` only: serve the dev consent page at `/oauth/dev-consent` as the consent screen, when
   * {@link devConsentAllowed}. No variable turns it on, so `npm start` and the image never serve it.
   */
  devConsent?: boolean;
  /**
   * Tests only: the clock (milliseconds) the daily budgets read their UTC day from, the connector's and each
   * operation's own, so a test can move to the next day without waiting for it. Default `Date.now`.
   */
  now?: () => number;
}

/** Wires configuration, backend, services and listeners: everything `npm start` and `npm run dev` run. */
export async function startApi(loaded: Config, logger: Logger, options: StartApiOptions = {}): Promise<RunningApi> {
  const { operations = OPERATIONS, jobConsumer, cimdFetch, mcpDirectCalls, devConsent = false, env = process.env } = options;
  const servesDevConsent = devConsent && devConsentAllowed(loaded);
  const config = servesDevConsent ? withDevConsent(loaded) : loaded;
  const metrics = new Metrics();
  announceSecretOverlap(config, logger, metrics);
  const jobs = paidJobsOf(operations);
  // Each job's own variables are read from the environment, and refused before any port opens.
  const processors = buildProcessors(jobs, loadJobSettings(env, jobs));
  assertKnownEventTypes(config.webhooks, jobs);
  const policies = buildPolicies(jobs, { attempts: config.jobAttempts, backoffMs: config.jobBackoffMs });
  // The policies also say whether each operation refunds its failures: one source for the backend and worker.
  const viewer = new JobViewer(jobs);
  const backend = createBackend({ config, processors, metrics, logger, policies, jobView: (job) => viewer.event(job) });
  const jobWorker =
    jobConsumer && backend.kind === 'redis'
      ? jobConsumer({ processors, policies, metrics, events: backend.events, jobView: (job) => viewer.event(job) })
      : undefined;
  const eventTypes = eventCatalogue(jobs);
  const { services, tokens } = createServices({
    config,
    backend,
    metrics,
    cimd: cimdFetch,
    viewer,
    eventTypes,
    ...(options.now ? { now: options.now } : {}),
    ...(config.x402 ? { facilitator: httpFacilitator(config.x402) } : {}),
  });
  const api = createApiServer(config.http);
  const app = createApp({
    config,
    backend,
    services,
    tokens,
    metrics,
    logger,
    operations,
    stopping: () => api.drain.stopping,
    mcpDirectCalls,
    devConsent: servesDevConsent,
  });
  api.serve(app, tracedRequests(app, matchedRoute));
  const { server } = api;
  const metricsServer = createMetricsServer(metrics);
  // One HOST for both: a developer's loopback run exposes neither; in a cluster Prometheus scrapes the pod's address.
  const [port, metricsPort] = await Promise.all([
    listen(server, config.port, config.host),
    listen(metricsServer, config.metricsPort, config.host),
  ]);
  const stopSweeping = sweepOrphanedHolds(config, backend, metrics, logger);
  const stopExpiring = expireGrants(config, services.credits, logger);
  const { address: host } = server.address() as AddressInfo;
  const runsJobs = backend.kind === 'memory' || !!jobWorker;
  const page = devConsent ? { dev_consent_page: servesDevConsent } : {};
  logger.info(
    { port, metrics_port: metricsPort, host, public_url: config.publicUrl, backend: backend.kind, runs_jobs: runsJobs, ...page },
    'api listening',
  );

  return {
    port,
    metricsPort,
    host,
    close: async () => {
      api.drain.stop();
      stopSweeping();
      stopExpiring();
      if (config.shutdownDelayMs > 0) {
        logger.info({ delay_ms: config.shutdownDelayMs }, 'not ready; serving on until the delay is over');
        await delay(config.shutdownDelayMs);
      }
      // One grace period covers both drains: what the HTTP drain used is no longer available to the jobs.
      const deadline = Date.now() + config.shutdownGraceMs;
      await api.drain.drain(config.shutdownGraceMs);
      logger.info('last response sent; draining jobs, then closing the backend');
      await jobWorker?.close(Math.max(0, deadline - Date.now()));
      await backend.close(Math.max(0, deadline - Date.now()));
      await closeServer(metricsServer, 0);
    },
  };
}

/** How often every API replica expires the grants past their expiry (each expiry is one atomic step). */
const EXPIRY_SWEEP_MS = 5_000;

/** In prepaid billing, expires the unspent rest of grants past their `expires_at`, with their events. Answers the stop. */
function expireGrants(config: Config, credits: CreditService, logger: Logger): () => void {
  if (config.billing.mode !== 'prepaid') return () => {};
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    credits
      .expireDue()
      .catch((error: unknown) => logger.warn({ err: error }, 'the grant expiry sweep failed; the next one tries again'))
      .finally(() => {
        running = false;
      });
  }, EXPIRY_SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Wherever jobs hold (prepaid billing, and with `X402=on` whatever the billing: an x402 payer's account always
 * holds), every API replica sweeps the holds whose job was never enqueued (at once with the others: each
 * release is one atomic step). Answers the stop.
 */
function sweepOrphanedHolds(config: Config, backend: ReturnType<typeof createBackend>, metrics: Metrics, logger: Logger): () => void {
  if (config.billing.mode !== 'prepaid' && config.x402 === undefined) return () => {};
  metrics.observeOldestHold(async () => (await backend.ledger.dueHolds(Number.MAX_SAFE_INTEGER, 1))[0]?.at);
  const sweeper = new HoldSweeper({
    ledger: backend.ledger,
    jobs: backend.queue,
    orphanSeconds: config.billing.holdOrphanSeconds,
    retentionSeconds: config.idempotencyTtlSeconds,
    hooks: { onOrphaned: (credits) => metrics.creditsOrphaned.inc(credits) },
  });
  return sweeper.start(sweepIntervalMs(config.billing.holdOrphanSeconds), (error) =>
    logger.warn({ err: error }, 'the orphaned-hold sweep failed; the next one tries again'),
  );
}

/**
 * Stops the API on SIGTERM or SIGINT however far its start has got. The entries call this before the listeners
 * open: a signal that comes once `/readyz` answers, while the metrics listener is still binding, then waits for
 * the start and drains, instead of taking Node's default action (exit 143). Tracing is flushed last.
 */
export function stopOnTerminate(started: Promise<RunningApi>, config: Config, logger: Logger, tracing?: Tracing): void {
  onTerminate(
    async () => {
      const api = await started;
      await api.close();
      // Last: the spans of the requests that just finished are sent before the process exits.
      await tracing?.shutdown().catch(() => undefined);
    },
    { graceMs: config.shutdownDelayMs + config.shutdownGraceMs, logger },
  );
}
