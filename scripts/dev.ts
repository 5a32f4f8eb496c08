import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { startTracing } from '../shared/platform/tracing/start-tracing';

// `npm run dev`: one process from source. On a fresh clone it writes .env with new random secrets;
// variables already in the environment win over .env. npm runs scripts from the package root, so .env and
// .env.example are looked up in the working directory.
const root = process.cwd();
const envFile = path.join(root, '.env');
if (!existsSync(envFile)) {
  const fresh = readFileSync(path.join(root, '.env.example'), 'utf8')
    .replace(/^CONNECTOR_SECRET=.*$/m, `CONNECTOR_SECRET=${randomBytes(32).toString('base64url')}`)
    .replace(/^LINK_SECRET=.*$/m, `LINK_SECRET=${randomBytes(32).toString('base64url')}`);
  // Written new (never copied) so it is created readable by its owner only.
  writeFileSync(envFile, fresh, { mode: 0o600, flag: 'wx' });
  process.stdout.write('Created .env from .env.example with freshly generated secrets (LINK_SECRET is in .env).\n');
}
loadDotenv({ path: envFile, override: false, quiet: true });

// Tracing (off unless an OTLP endpoint is set, in the environment or .env) starts before the API, the worker
// and their libraries are loaded, so that its instrumentations patch them as they load: hence the late import.
const tracing = startTracing(process.env, 'connector-dev');
void import('./dev-start').then(({ startDev }) => startDev(tracing));
