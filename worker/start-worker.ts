import type { Logger } from 'pino';
import { loadJobSettings } from '../shared/domain/jobs/job-settings';
import { JobViewer } from '../shared/domain/jobs/job-viewer';
import { buildPolicies, buildProcessors, type PaidJob } from '../shared/domain/jobs/processor';
import { assertKnownEventTypes } from '../shared/domain/webhooks/event-catalogue';
import type { Config } from '../shared/platform/config/config';
import { listen } from '../shared/platform/lifecycle/listen';
import { closeServer } from '../shared/platform/lifecycle/shutdown';
import { Metrics } from '../shared/platform/metrics/metrics';
import { createMetricsServer } from '../shared/platform/metrics/metrics-server';
import { announceSecretOverlap } from '../shared/platform/secrets/secret-overlap';
import { createJobWorker } from './job-worker';
import { createWebhookWorker } from './webhook-worker';

/** The part of the grace period kept for closing connections after the drain. */
const SHUTDOWN_RESERVE_MS = 1000;

/** A running worker process: its job consumer and its small HTTP port. */
export interface RunningWorker {
  /** The port serving `/healthz`, `/readyz` and `/metrics`. */
  metricsPort: number;
  /** Stops taking jobs (`/readyz` 503), finishes running ones within the grace period or hands them back, closes Redis, then the port. */
  close(): Promise<void>;
}

/**
 * Everything `npm run start:worker` runs: the BullMQ consumer and, on `METRICS_PORT`, the probes and metrics
 * (the worker has no other port). It starts even when Redis is down: `/readyz` answers 503 until Redis is
 * reachable, and the consumer picks up work by itself once it is. `jobs` are the paid jobs it runs
 * (`PAID_JOBS` in `worker/main.ts`): each one's processor, settings and policy (timeout, attempts, back-off,
 * refund on failure) come from its declaration there.
 */
export async function startWorker(
  config: Config,
  logger: Logger,
  { jobs, afterJobEvent, env = process.env }: { jobs: readonly PaidJob[]; afterJobEvent?: () => void; env?: NodeJS.ProcessEnv },
): Promise<RunningWorker> {
  const metrics = new Metrics();
  announceSecretOverlap(config, logger, metrics);
  const processors = buildProcessors(jobs, loadJobSettings(env, jobs));
  assertKnownEventTypes(config.webhooks, jobs);
  const policies = buildPolicies(jobs, { attempts: config.jobAttempts, backoffMs: config.jobBackoffMs });
  // The webhook deliveries, when a receiver is configured: sent from here, never from the API.
  const viewer = new JobViewer(jobs);
  const webhooks = createWebhookWorker({ config, metrics, logger, jobView: (job) => viewer.event(job) });
  const jobWorker = createJobWorker({ config, processors, policies, metrics, logger, events: webhooks?.events, afterJobEvent });
  let stopping = false;
  // Not ready from the moment it is told to stop: it takes no new jobs from then on.
  const server = createMetricsServer(
    metrics,
    async () => !stopping && (await jobWorker.ready()) && (webhooks ? await webhooks.ready() : true),
  );
  const metricsPort = await listen(server, config.metricsPort, config.host);
  logger.info(
    { metrics_port: metricsPort, concurrency: config.workerConcurrency, operations: [...processors.keys()], webhooks: !!webhooks },
    'worker started',
  );

  return {
    metricsPort,
    close: async () => {
      stopping = true;
      // Up to a second of the grace period is kept for cutting connections and closing Redis, so that the
      // whole shutdown fits in SHUTDOWN_GRACE_MS.
      // Jobs first (a finishing job still records its event), then the deliveries, within one grace period.
      const deadline = Date.now() + Math.max(0, config.shutdownGraceMs - SHUTDOWN_RESERVE_MS);
      await jobWorker.close(Math.max(0, deadline - Date.now()));
      await webhooks?.close(Math.max(0, deadline - Date.now()));
      // The probe port goes last so that the orchestrator can watch the drain.
      await closeServer(server, 0);
    },
  };
}
