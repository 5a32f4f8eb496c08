// First, as a bare import no sorting moves: tracing patches modules as they load (api/tracing.ts).
import './tracing';
import { PAID_JOBS } from '../shared/contract/operations/paid-jobs';
import { OPERATIONS } from '../shared/contract/operations/registry';
import { assertRegistryRules } from '../shared/contract/operations/registry-rules';
import { loadJobSettings } from '../shared/domain/jobs/job-settings';
import { assertKnownEventTypes } from '../shared/domain/webhooks/event-catalogue';
import { loadConfigOrExit, orExitOnConfigError } from '../shared/platform/config/load-config-or-exit';
import { createLogger } from '../shared/platform/logging/logger';
import { startApi, stopOnTerminate } from './start-api';
import { tracing } from './tracing';

// The API process: configuration from the real environment only (never .env), then listen.
const config = loadConfigOrExit(process.env, 'api');
// The paid jobs' own variables are refused here too, with the same message, before anything starts.
orExitOnConfigError('api', () => loadJobSettings(process.env, PAID_JOBS));
// So is a WEBHOOK_EVENT_TYPES naming a type neither the connector nor its operations send.
orExitOnConfigError('api', () => assertKnownEventTypes(config.webhooks, PAID_JOBS));
const logger = createLogger(config.logLevel, 'connector-api');

// A registry that breaks a rule (a description too long, a price its input does not bound) never serves.
assertRegistryRules(OPERATIONS);
const started = startApi(config, logger);
stopOnTerminate(started, config, logger, tracing);
started.catch((error: unknown) => {
  logger.fatal({ err: error }, 'api failed to start');
  logger.flush(() => process.exit(1));
});
