import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { startApi } from '../api/start-api';
import { loadConfigOrExit } from '../shared/config/load-config-or-exit';
import { onTerminate } from '../shared/lifecycle/shutdown';
import { createLogger } from '../shared/logging/logger';

// `npm run dev`: one process from source. On a fresh clone it writes .env with new random secrets;
// variables already in the environment win over .env.
const root = path.resolve(__dirname, '..');
const envFile = path.join(root, '.env');
if (!existsSync(envFile)) {
  copyFileSync(path.join(root, '.env.example'), envFile);
  const fresh = readFileSync(envFile, 'utf8')
    .replace(/^CONNECTOR_SECRET=.*$/m, `CONNECTOR_SECRET=${randomBytes(32).toString('base64url')}`)
    .replace(/^LINK_SECRET=.*$/m, `LINK_SECRET=${randomBytes(24).toString('base64url')}`);
  writeFileSync(envFile, fresh, { mode: 0o600 });
  process.stdout.write('Created .env from .env.example with freshly generated secrets (LINK_SECRET is in .env).\n');
}
loadDotenv({ path: envFile, override: false, quiet: true });

const config = loadConfigOrExit(process.env, 'dev');
const logger = createLogger(config.logLevel, 'connector-dev');
startApi(config, logger).then(
  (api) => {
    process.stdout.write(`Connector on ${config.publicUrl} (OpenAPI: ${config.publicUrl}/openapi.json, metrics: http://localhost:${api.metricsPort}/metrics)\n`);
    onTerminate(api.close, { graceMs: config.shutdownGraceMs, logger });
  },
  (error: unknown) => {
    logger.fatal({ err: error }, 'failed to start');
    logger.flush(() => process.exit(1));
  },
);
