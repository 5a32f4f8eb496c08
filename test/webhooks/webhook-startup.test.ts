import { expect } from 'chai';
import { BASE_ENV } from '../support/harness';
import { spawnNode } from '../support/spawn-process';
import { newWebhookSecret } from '../support/webhook-receiver';
import { freePort } from '../testkit/free-port';
import { accepts } from '../testkit/node-process';

const REQUIRED = {
  CONNECTOR_SECRET: BASE_ENV.CONNECTOR_SECRET,
  PUBLIC_URL: BASE_ENV.PUBLIC_URL,
  DASHBOARD_URL: BASE_ENV.DASHBOARD_URL,
  LINK_SECRET: BASE_ENV.LINK_SECRET,
};

describe('startup refusal of the built processes for webhook settings', () => {
  const secret = newWebhookSecret();
  const cases: Array<[string, 'api' | 'worker', Record<string, string>, string]> = [
    [
      'WEBHOOK_URL without WEBHOOK_SECRET',
      'api',
      { WEBHOOK_URL: 'https://hooks.example.com/in' },
      'WEBHOOK_SECRET is required when WEBHOOK_URL is set',
    ],
    ['WEBHOOK_SECRET without WEBHOOK_URL', 'worker', { WEBHOOK_SECRET: secret }, 'WEBHOOK_URL is required when WEBHOOK_SECRET is set'],
    ['a plain-http URL', 'api', { WEBHOOK_URL: 'http://hooks.example.com/in', WEBHOOK_SECRET: secret }, 'WEBHOOK_URL must use https'],
    [
      'a private address without the opt-in',
      'worker',
      { WEBHOOK_URL: 'https://10.0.0.7/in', WEBHOOK_SECRET: secret },
      'WEBHOOK_URL must be on the public internet',
    ],
  ];
  for (const [what, role, webhookEnv, message] of cases) {
    it(`the ${role} refuses ${what}, naming the variable without its value, and exits 78 before listening`, async () => {
      const [port, metricsPort] = [await freePort(), await freePort()];
      const env = { ...REQUIRED, REDIS_URL: 'redis://127.0.0.1:1', PORT: String(port), METRICS_PORT: String(metricsPort), ...webhookEnv };
      const proc = spawnNode(role === 'api' ? 'dist/api/main.js' : 'dist/worker/main.js', env);
      expect(await proc.exited).to.equal(78);
      expect(proc.stderr()).to.contain(message);
      expect(proc.stderr() + proc.stdout())
        .to.not.contain(secret.slice(6))
        .and.not.contain('hooks.example.com')
        .and.not.contain('10.0.0.7');
      expect(await accepts(port)).to.equal(false);
      expect(await accepts(metricsPort)).to.equal(false);
    });
  }
});
