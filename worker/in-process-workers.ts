import type { Logger } from 'pino';
import type { Job } from '../shared/domain/jobs/job';
import type { JobPolicies, ProcessorMap } from '../shared/domain/jobs/processor';
import type { EventQueue } from '../shared/domain/webhooks/event-queue';
import type { Config } from '../shared/platform/config/config';
import type { Metrics } from '../shared/platform/metrics/metrics';
import { createJobWorker } from './job-worker';
import { createWebhookWorker } from './webhook-worker';

/**
 * The worker's consumers (paid jobs and, when configured, webhook deliveries) for a process that also serves
 * the API (`npm run dev`, tests): what `startApi`'s `jobConsumer` option takes, composed at the entry so that
 * the API never imports the worker.
 */
export function inProcessWorkers(config: Config, logger: Logger) {
  return (parts: {
    processors: ProcessorMap;
    policies: JobPolicies;
    metrics: Metrics;
    events: EventQueue;
    jobView?: (job: Job) => Job;
  }): { close(graceMs: number): Promise<void> } => {
    // The registry's own policies, as the API built them: the worker consults nothing else.
    const jobs = createJobWorker({
      config,
      logger,
      processors: parts.processors,
      policies: parts.policies,
      metrics: parts.metrics,
      events: parts.events,
    });
    const webhooks = createWebhookWorker({ config, metrics: parts.metrics, logger, jobView: parts.jobView });
    return {
      close: async (graceMs) => {
        const deadline = Date.now() + graceMs;
        await jobs.close(graceMs);
        await webhooks?.close(Math.max(0, deadline - Date.now()));
      },
    };
  };
}
