import { config as loadDotenv } from 'dotenv';
import { startDashboard } from './dashboard';

// The example dashboard, run next to `npm run dev`: it reads the connector's .env for LINK_SECRET and
// WEBHOOK_SECRET (variables already set win). See examples/README.md.
loadDotenv({ path: '.env', override: false, quiet: true });
const env = process.env;
if (!env.LINK_SECRET) {
  process.stderr.write('examples/dashboard: LINK_SECRET is not set (run `npm run dev` once to create .env)\n');
  process.exit(78);
}
startDashboard({
  connectorUrl: env.CONNECTOR_URL ?? 'http://localhost:8787',
  linkSecret: env.LINK_SECRET,
  webhookSecret: env.WEBHOOK_SECRET,
  person: env.DASHBOARD_PERSON ?? 'carol@example.com',
  port: Number(env.DASHBOARD_PORT ?? 3000),
}).then(
  (dashboard) =>
    process.stdout.write(
      `Example dashboard on ${dashboard.url} (signed in as ${env.DASHBOARD_PERSON ?? 'carol@example.com'}; webhooks ${dashboard.inbox ? 'on' : 'off: no WEBHOOK_SECRET'})\n`,
    ),
  (error: unknown) => {
    process.stderr.write(`examples/dashboard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
