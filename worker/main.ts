// First, as a bare import no sorting moves: tracing patches modules as they load (worker/tracing.ts).
import './tracing';
import { PAID_JOBS } from '../shared/contract/operations/paid-jobs';
import { loadJobSettings } from '../shared/domain/jobs/job-settings';
import { assertKnownEventTypes } from '../shared/domain/webhooks/event-catalogue';
import { loadConfigOrExit, orExitOnConfigError } from '../shared/platform/config/load-config-or-exit';
import { onTerminate } from '../shared/platform/lifecycle/shutdown';
import { createLogger } from '../shared/platform/logging/logger';
import { startWorker } from './start-worker';
import { tracing } from './tracing';

// The worker process: the same validated configuration as the API, plus REDIS_URL, which the 'worker'
// role requires (a worker without a shared queue would have nothing to consume).
const config = loadConfigOrExit(process.env, 'worker');
// The paid jobs' own variables are refused here too, with the same message, before anything starts.
orExitOnConfigError('worker', () => loadJobSettings(process.env, PAID_JOBS));
// So is a WEBHOOK_EVENT_TYPES naming a type neither the connector nor its operations send.
orExitOnConfigError('worker', () => assertKnownEventTypes(config.webhooks, PAID_JOBS));
const logger = createLogger(config.logLevel, 'connector-worker');

// Test-only (test/webhooks): dies the hard way right after recording a job's event, before the job is
// marked finished, to show the event survives. Needs NODE_ENV=test as well, so no deployment sets it by accident.
const crashAfterJobEvent =
  process.env.NODE_ENV === 'test' && process.env.CONNECTOR_TEST_CRASH_AFTER_JOB_EVENT === '1'
    ? () => process.kill(process.pid, 'SIGKILL')
    : undefined;

// The signal handlers go in before the worker starts, as in api/main.ts: a SIGTERM during the start waits for
// it, then shuts down cleanly.
const started = startWorker(config, logger, { jobs: PAID_JOBS, afterJobEvent: crashAfterJobEvent });
onTerminate(
  async () => {
    const worker = await started;
    await worker.close();
    // Last: the spans of the jobs and deliveries that just finished are sent before the process exits.
    await tracing?.shutdown().catch(() => undefined);
  },
  { graceMs: config.shutdownGraceMs, logger },
);
started.catch((error: unknown) => {
  logger.fatal({ err: error }, 'worker failed to start');
  logger.flush(() => process.exit(1));
});
