import { loadConfigOrExit } from '../shared/platform/config/load-config-or-exit';
import { onTerminate } from '../shared/platform/lifecycle/shutdown';
import { createLogger } from '../shared/platform/logging/logger';
import { startApi } from './start-api';

// The API process: configuration from the real environment only (never .env), then listen.
const config = loadConfigOrExit(process.env, 'api');
const logger = createLogger(config.logLevel, 'connector-api');

startApi(config, logger).then(
  (api) => onTerminate(api.close, { graceMs: config.shutdownDelayMs + config.shutdownGraceMs, logger }),
  (error: unknown) => {
    logger.fatal({ err: error }, 'api failed to start');
    logger.flush(() => process.exit(1));
  },
);
