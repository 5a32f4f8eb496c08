import pinoPretty from 'pino-pretty';
import { startApi, stopOnTerminate } from '../api/start-api';
import { loadCardPagesWith } from '../shared/contract/cards/page-card';
import { PAID_JOBS } from '../shared/contract/operations/paid-jobs';
import { OPERATIONS } from '../shared/contract/operations/registry';
import { assertRegistryRules } from '../shared/contract/operations/registry-rules';
import { loadJobSettings } from '../shared/domain/jobs/job-settings';
import { loadConfigOrExit, orExitOnConfigError } from '../shared/platform/config/load-config-or-exit';
import { devLogFormat } from '../shared/platform/logging/log-format';
import { createLogger } from '../shared/platform/logging/logger';
import type { Tracing } from '../shared/platform/tracing/start-tracing';
import { inProcessWorkers } from '../worker/in-process-workers';
import { pageCardsOf } from './build-cards';
import { bundleCardPage } from './bundle-card';

/** `npm run dev` once its environment is loaded and tracing started (scripts/dev.ts): configure and listen. */
export function startDev(tracing: Tracing | undefined): void {
  const config = loadConfigOrExit(process.env, 'dev');
  orExitOnConfigError('dev', () => loadJobSettings(process.env, PAID_JOBS));
  // Readable lines at a terminal, JSON when piped; redaction happens in pino before either is written.
  const pretty = devLogFormat(process.stdout.isTTY, process.env.LOG_FORMAT) === 'pretty';
  const logger = createLogger(
    config.logLevel,
    'connector-dev',
    pretty ? pinoPretty({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', singleLine: true }) : undefined,
  );
  // With REDIS_URL set, this one process also consumes the job queue, so `npm run dev` needs no second terminal:
  // the API and the worker are composed here, at the entry, and neither imports the other. Only this entry asks
  // for the dev consent page; startApi serves it only on a loopback PUBLIC_URL and listener without CONSENT_URL.
  // From the sources no card is built: each is bundled from its page on first read, as npm run build does.
  loadCardPagesWith(bundleCardPage);
  // A registry that breaks a rule (a description too long, a price its input does not bound) never serves.
  assertRegistryRules(OPERATIONS);
  const started = startApi(config, logger, { jobConsumer: inProcessWorkers(config, logger), devConsent: true });
  stopOnTerminate(started, config, logger, tracing);
  started.then(
    (api) => {
      process.stdout.write(
        `Connector on ${config.publicUrl} (OpenAPI: ${config.publicUrl}/openapi.json, metrics: http://localhost:${api.metricsPort}/metrics)\n`,
      );
      // Bundled now, in the background, so that a host's first read does not wait and a card that no longer
      // builds shows here at once.
      for (const card of pageCardsOf()) {
        card.html().catch((error: unknown) => logger.error({ err: error, card: card.uri }, 'an MCP Apps card could not be bundled'));
      }
    },
    (error: unknown) => {
      logger.fatal({ err: error }, 'failed to start');
      logger.flush(() => process.exit(1));
    },
  );
}
