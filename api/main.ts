// First: tracing patches modules as they load (api/tracing.ts).
import { tracing } from './tracing';
import { loadConfigOrExit, orExitOnConfigError } from '../shared/platform/config/load-config-or-exit';
import { loadJobSettings } from '../shared/domain/jobs/job-settings';
import { PAID_JOBS } from '../shared/contract/operations/paid-jobs';
import { onTerminate } from '../shared/platform/lifecycle/shutdown';
import { createLogger } from '../shared/platform/logging/logger';
import { startApi } from './start-api';

// The API process: configuration from the real environment only (never .env), then listen.
const config = loadConfigOrExit(process.env, 'api');
// The paid jobs' own variables are refused here too, with the same message, before anything starts.
orExitOnConfigError('api', () => loadJobSettings(process.env, PAID_JOBS));
const logger = createLogger(config.logLevel, 'connector-api');

// The signal handlers go in before the listeners open: a SIGTERM that comes once /readyz answers, while the
// metrics listener is still binding, then waits for the start and shuts down cleanly instead of killing the
// process with Node's default action (exit 143).
const started = startApi(config, logger);
onTerminate(
  async () => {
    const api = await started;
    await api.close();
    // Last: the spans of the requests that just finished are sent before the process exits.
    await tracing?.shutdown().catch(() => undefined);
  },
  { graceMs: config.shutdownDelayMs + config.shutdownGraceMs, logger },
);
started.catch((error: unknown) => {
  logger.fatal({ err: error }, 'api failed to start');
  logger.flush(() => process.exit(1));
});
