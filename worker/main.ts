import { loadConfigOrExit } from '../shared/config/load-config-or-exit';
import { onTerminate } from '../shared/lifecycle/shutdown';
import { createLogger } from '../shared/logging/logger';
import { startWorker } from './start-worker';

// The worker process: the same validated configuration as the API, plus REDIS_URL, which the 'worker'
// role requires (a worker without a shared queue would have nothing to consume).
const config = loadConfigOrExit(process.env, 'worker');
const logger = createLogger(config.logLevel, 'connector-worker');

startWorker(config, logger).then(
  (worker) => onTerminate(worker.close, { graceMs: config.shutdownGraceMs, logger }),
  (error: unknown) => {
    logger.fatal({ err: error }, 'worker failed to start');
    logger.flush(() => process.exit(1));
  },
);
