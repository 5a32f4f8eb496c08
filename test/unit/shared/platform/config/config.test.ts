import { expect } from 'chai';
import { loadConfig } from '../../../../../shared/platform/config/config';
import { configProblems, configProblemNames as problemsOf, REQUIRED_ENV as REQUIRED } from '../../../../support/config-problems';
import { BASE_ENV } from '../../../../support/harness';
import { ROTATION } from '../../../../support/rotation';

const HOOKS = { WEBHOOK_URL: 'https://dashboard.example.com/hooks', WEBHOOK_SECRET: ROTATION.webhook.new };

/** The problems `loadConfig` reports for the required variables with `env` over them. */
const problems = (env: Record<string, string>) => configProblems({ ...REQUIRED, ...env });

describe('configuration rules', () => {
  it('the four required variables with valid values load, with the documented defaults', () => {
    const config = loadConfig(REQUIRED, 'api');
    expect(config).to.include({
      port: 8787,
      metricsPort: 9464,
      redis: undefined,
      jobQueueShards: 1,
      redisMinReplicas: 0,
      redisWaitMs: 500,
      idempotencyTtlSeconds: 86_400,
      trustProxy: 0,
    });
    expect(loadConfig({ ...REQUIRED, REDIS_URL: 'redis://127.0.0.1:6379' }, 'worker').metricsPort).to.equal(9465);
  });

  it('abuse limits: AUTH_FAILURES_PER_MINUTE defaults to 20; DAILY_CREDIT_LIMIT is unset (no cap) unless a whole number', () => {
    const config = loadConfig(REQUIRED, 'api');
    expect(config.authFailuresPerMinute).to.equal(20);
    expect(config.dailyCreditLimit).to.equal(undefined);
    expect(loadConfig({ ...REQUIRED, DAILY_CREDIT_LIMIT: '50' }, 'api').dailyCreditLimit).to.equal(50);
    expect(loadConfig({ ...REQUIRED, DAILY_CREDIT_LIMIT: '0' }, 'api').dailyCreditLimit).to.equal(0);
    expect(problemsOf({ ...REQUIRED, DAILY_CREDIT_LIMIT: '-1' })).to.deep.equal(['DAILY_CREDIT_LIMIT']);
    expect(problemsOf({ ...REQUIRED, DAILY_CREDIT_LIMIT: 'lots' })).to.deep.equal(['DAILY_CREDIT_LIMIT']);
    expect(problemsOf({ ...REQUIRED, AUTH_FAILURES_PER_MINUTE: '0' })).to.deep.equal(['AUTH_FAILURES_PER_MINUTE']);
  });

  it('billing: metered, top-up at DASHBOARD_URL, no low threshold, orphaned holds after 120 s and confirmation elicit above 1 unless set', () => {
    expect(loadConfig(REQUIRED, 'api').billing).to.deep.equal({
      mode: 'metered',
      topUpUrl: REQUIRED.DASHBOARD_URL,
      holdOrphanSeconds: 120,
      spendConfirmation: 'elicit',
      spendConfirmationAbove: 1,
    });
    const set = {
      ...REQUIRED,
      BILLING_MODE: 'prepaid',
      TOP_UP_URL: 'https://shop.example.com/credits?plan=basic',
      CREDITS_LOW_THRESHOLD: '0',
      SPEND_CONFIRMATION: 'required',
      SPEND_CONFIRMATION_ABOVE: '0',
      HOLD_ORPHAN_SECONDS: '1',
    };
    expect(loadConfig({ ...set, REDIS_URL: 'redis://127.0.0.1:6379' }, 'worker').billing).to.deep.equal({
      mode: 'prepaid',
      topUpUrl: 'https://shop.example.com/credits?plan=basic',
      lowThreshold: 0,
      holdOrphanSeconds: 1,
      spendConfirmation: 'required',
      spendConfirmationAbove: 0,
    });
    expect(loadConfig({ ...REQUIRED, TOP_UP_URL: 'http://localhost:3000/credits' }, 'api').billing.topUpUrl).to.equal(
      'http://localhost:3000/credits',
    );
    for (const bad of ['0', '86401', 'soon'])
      expect(problemsOf({ ...REQUIRED, HOLD_ORPHAN_SECONDS: bad })).to.deep.equal(['HOLD_ORPHAN_SECONDS']);
  });

  it('billing variables out of their rules are refused by name', () => {
    for (const [name, value] of [
      ['BILLING_MODE', 'free'],
      ['TOP_UP_URL', 'http://shop.example.com/credits'],
      ['TOP_UP_URL', 'https://shop.example.com/credits#top'],
      ['TOP_UP_URL', 'https://user:pw@shop.example.com/'],
      ['TOP_UP_URL', 'shop.example.com'],
      ['CREDITS_LOW_THRESHOLD', '-1'],
      ['CREDITS_LOW_THRESHOLD', 'low'],
      ['SPEND_CONFIRMATION', 'always'],
      ['SPEND_CONFIRMATION_ABOVE', '1000000001'],
    ]) {
      expect(problemsOf({ ...REQUIRED, [name]: value }), `${name}=${value}`).to.deep.equal([name]);
    }
  });

  it('an empty environment names all four required variables', () => {
    expect(problemsOf({}).sort()).to.deep.equal(['CONNECTOR_SECRET', 'DASHBOARD_URL', 'LINK_SECRET', 'PUBLIC_URL']);
  });

  it('CONNECTOR_SECRET needs at least 32 characters', () => {
    expect(problemsOf({ ...REQUIRED, CONNECTOR_SECRET: 'x'.repeat(31) })).to.deep.equal(['CONNECTOR_SECRET']);
    expect(problemsOf({ ...REQUIRED, CONNECTOR_SECRET: 'x'.repeat(32) })).to.deep.equal([]);
  });

  it('LINK_SECRET and LINK_SECRET_PREVIOUS need at least 32 characters, like CONNECTOR_SECRET', () => {
    for (const name of ['LINK_SECRET', 'LINK_SECRET_PREVIOUS']) {
      expect(problemsOf({ ...REQUIRED, [name]: '' }), `${name} empty`).to.deep.equal([name]);
      expect(problemsOf({ ...REQUIRED, [name]: 'l'.repeat(31) }), `${name} of 31`).to.deep.equal([name]);
      expect(problemsOf({ ...REQUIRED, [name]: 'l0'.repeat(16) }), `${name} of 32`).to.deep.equal([]);
    }
  });

  it('LINK_SECRET and LINK_SECRET_PREVIOUS of 32 or more blanks, or of one character repeated, are refused by name', () => {
    for (const name of ['LINK_SECRET', 'LINK_SECRET_PREVIOUS']) {
      for (const weak of [' '.repeat(32), '\t'.repeat(40), 'l'.repeat(32), '7'.repeat(64)]) {
        expect(problemsOf({ ...REQUIRED, [name]: weak }), `${name}=${JSON.stringify(weak)}`).to.deep.equal([name]);
      }
    }
  });

  it('PUBLIC_URL accepts https anywhere and http only on exactly localhost, 127.0.0.1 or [::1]', () => {
    for (const ok of [
      'https://connector.example.com',
      'https://a.example.com/base',
      'http://localhost:8787',
      'http://127.0.0.1:8787',
      'http://[::1]:8787',
    ]) {
      expect(problemsOf({ ...REQUIRED, PUBLIC_URL: ok }), ok).to.deep.equal([]);
    }
    for (const bad of [
      'http://example.com',
      'http://localhost.evil.com',
      'http://127.0.0.1.nip.io',
      'http://10.0.0.1',
      'ftp://localhost',
      'localhost:8787',
      '/relative',
      'https://user:pw@example.com',
      'https://example.com/?q=1',
    ]) {
      expect(problemsOf({ ...REQUIRED, PUBLIC_URL: bad }), bad).to.deep.equal(['PUBLIC_URL']);
    }
  });

  it('DASHBOARD_URL must be an absolute https URL', () => {
    for (const bad of ['http://dashboard.example.com', 'http://localhost:3000', 'dashboard.example.com', 'not a url']) {
      expect(problemsOf({ ...REQUIRED, DASHBOARD_URL: bad }), bad).to.deep.equal(['DASHBOARD_URL']);
    }
  });

  it('the worker also requires REDIS_URL', () => {
    expect(problemsOf(REQUIRED, 'worker')).to.deep.equal(['REDIS_URL']);
    expect(problemsOf({ ...REQUIRED, REDIS_URL: 'redis://127.0.0.1:6379' }, 'worker')).to.deep.equal([]);
  });

  it('an error message names variables and never contains their values', () => {
    const secret = 'short-but-secret-value';
    try {
      loadConfig({ ...REQUIRED, CONNECTOR_SECRET: secret, PUBLIC_URL: 'http://secret-host.example.com' }, 'api');
      expect.fail('should have thrown');
    } catch (error) {
      const text = String((error as Error).message);
      expect(text).to.contain('CONNECTOR_SECRET').and.contain('PUBLIC_URL');
      expect(text).to.not.contain(secret).and.not.contain('secret-host');
    }
  });

  it('optional numbers out of range are refused by name', () => {
    expect(problemsOf({ ...REQUIRED, PORT: '70000' })).to.deep.equal(['PORT']);
    expect(problemsOf({ ...REQUIRED, WORKER_CONCURRENCY: '0' })).to.deep.equal(['WORKER_CONCURRENCY']);
    expect(problemsOf({ ...REQUIRED, LOG_LEVEL: 'loud' })).to.deep.equal(['LOG_LEVEL']);
  });

  it("CONSENT_URL takes https, or plain http on an exact loopback host (a dashboard on the developer's machine)", () => {
    expect(loadConfig({ ...REQUIRED, CONSENT_URL: 'http://localhost:3000/connect' }, 'api').oauth).to.include({
      consentUrl: 'http://localhost:3000/connect',
      consentUrlSet: true,
    });
    expect(loadConfig({ ...REQUIRED, CONSENT_URL: 'http://127.0.0.1:3000/connect' }, 'api').oauth.consentUrl).to.equal(
      'http://127.0.0.1:3000/connect',
    );
    expect(loadConfig({ ...REQUIRED, CONSENT_URL: 'https://dashboard.example.com/connect' }, 'api').oauth.consentUrl).to.equal(
      'https://dashboard.example.com/connect',
    );
  });

  it('without CONSENT_URL the consent screen is <DASHBOARD_URL>/connect, whatever PUBLIC_URL is: no variable selects the dev page', () => {
    for (const publicUrl of [BASE_ENV.PUBLIC_URL, 'http://127.0.0.1:8787', 'https://connector.example.com']) {
      expect(loadConfig({ ...REQUIRED, PUBLIC_URL: publicUrl }, 'api').oauth, publicUrl).to.include({
        consentUrl: `${BASE_ENV.DASHBOARD_URL}/connect`,
        consentUrlSet: false,
      });
    }
  });

  it('HOST defaults to the loopback address of a loopback PUBLIC_URL, and to every interface (undefined) otherwise', () => {
    const hostFor = (env: Record<string, string>) => loadConfig({ ...REQUIRED, ...env }, 'api').host;
    expect(hostFor({ PUBLIC_URL: 'http://localhost:8787' })).to.equal('127.0.0.1');
    expect(hostFor({ PUBLIC_URL: 'http://127.0.0.1:8787' })).to.equal('127.0.0.1');
    expect(hostFor({ PUBLIC_URL: 'http://[::1]:8787' })).to.equal('::1');
    expect(hostFor({ PUBLIC_URL: 'https://localhost' })).to.equal('127.0.0.1');
    expect(hostFor({ PUBLIC_URL: 'https://connector.example.com' })).to.equal(undefined);
    expect(hostFor({ PUBLIC_URL: 'https://127.0.0.2' }), 'only the exact loopback hosts PUBLIC_URL accepts for http').to.equal(undefined);
  });

  it('HOST, when set, wins in both directions; :: means every interface (undefined); it must be an IP address', () => {
    const hostFor = (env: Record<string, string>) => loadConfig({ ...REQUIRED, ...env }, 'api').host;
    expect(hostFor({ HOST: '0.0.0.0' })).to.equal('0.0.0.0');
    expect(hostFor({ HOST: '::' })).to.equal(undefined);
    expect(hostFor({ HOST: '::1', PUBLIC_URL: 'https://connector.example.com' })).to.equal('::1');
    expect(loadConfig({ ...REQUIRED, HOST: '10.0.0.5', REDIS_URL: 'redis://127.0.0.1:6379' }, 'worker').host, 'the worker too').to.equal(
      '10.0.0.5',
    );
    for (const bad of ['localhost', 'example.com', '0.0.0.0:8787', '[::1]', '256.0.0.1']) {
      expect(problemsOf({ ...REQUIRED, HOST: bad }), bad).to.deep.equal(['HOST']);
    }
  });

  it('invalid OAuth variables are refused by name like the others, not with a crash', () => {
    expect(problemsOf({ ...REQUIRED, CONSENT_URL: 'http://consent.example.com' })).to.deep.equal(['CONSENT_URL']);
    expect(problemsOf({ ...REQUIRED, CONSENT_URL: 'http://localhost.example.com/connect' })).to.deep.equal(['CONSENT_URL']);
    expect(problemsOf({ ...REQUIRED, OAUTH_ACCESS_TOKEN_TTL_SECONDS: '5', OAUTH_CLIENTS: 'not json' })).to.have.members([
      'OAUTH_ACCESS_TOKEN_TTL_SECONDS',
      'OAUTH_CLIENTS',
    ]);
  });

  it('OAUTH_UNUSED_CLIENT_TTL_SECONDS defaults to a day and is refused outside 1 s to 30 days', () => {
    expect(loadConfig(REQUIRED, 'api').oauth.unusedClientTtlSeconds).to.equal(86_400);
    expect(loadConfig({ ...REQUIRED, OAUTH_UNUSED_CLIENT_TTL_SECONDS: '2592000' }, 'api').oauth.unusedClientTtlSeconds).to.equal(2_592_000);
    for (const value of ['0', '2592001', '1.5', 'a day'])
      expect(problemsOf({ ...REQUIRED, OAUTH_UNUSED_CLIENT_TTL_SECONDS: value }), value).to.deep.equal(['OAUTH_UNUSED_CLIENT_TTL_SECONDS']);
  });
});

describe('shutdown and HTTP limit settings', () => {
  it('default to no shutdown delay, a 75 s keep-alive, 20 s for headers, 30 s per request and 16 KiB of headers', () => {
    const config = loadConfig(REQUIRED, 'api');
    expect(config.shutdownDelayMs).to.equal(0);
    expect(config.http).to.deep.equal({
      keepAliveTimeoutMs: 75_000,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
      maxHeaderBytes: 16_384,
    });
  });

  it('read SHUTDOWN_DELAY_MS and every HTTP_* variable', () => {
    const config = loadConfig(
      {
        ...REQUIRED,
        SHUTDOWN_DELAY_MS: '5000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '90000',
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_REQUEST_TIMEOUT_MS: '6000',
        HTTP_MAX_HEADER_BYTES: '8192',
      },
      'api',
    );
    expect(config.shutdownDelayMs).to.equal(5000);
    expect(config.http).to.deep.equal({ keepAliveTimeoutMs: 90_000, headersTimeoutMs: 5000, requestTimeoutMs: 6000, maxHeaderBytes: 8192 });
  });

  it('refuse a request timeout shorter than the headers timeout, naming HTTP_REQUEST_TIMEOUT_MS', () => {
    expect(problemsOf({ ...REQUIRED, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4999' })).to.deep.equal([
      'HTTP_REQUEST_TIMEOUT_MS',
    ]);
    expect(problemsOf({ ...REQUIRED, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '5000' })).to.deep.equal([]);
  });

  it('refuse values out of range: a negative delay, a keep-alive under a second, header limits outside 4-64 KiB', () => {
    expect(problemsOf({ ...REQUIRED, SHUTDOWN_DELAY_MS: '-1' })).to.deep.equal(['SHUTDOWN_DELAY_MS']);
    expect(problemsOf({ ...REQUIRED, HTTP_KEEP_ALIVE_TIMEOUT_MS: '999' })).to.deep.equal(['HTTP_KEEP_ALIVE_TIMEOUT_MS']);
    expect(problemsOf({ ...REQUIRED, HTTP_MAX_HEADER_BYTES: '4095' })).to.deep.equal(['HTTP_MAX_HEADER_BYTES']);
    expect(problemsOf({ ...REQUIRED, HTTP_MAX_HEADER_BYTES: '65537' })).to.deep.equal(['HTTP_MAX_HEADER_BYTES']);
  });
});

describe('the previous secrets of a rotation (CONNECTOR_SECRET_PREVIOUS, LINK_SECRET_PREVIOUS, WEBHOOK_SECRET_PREVIOUS)', () => {
  it('unset: no overlap; set and valid: each is in the configuration beside its current value', () => {
    const plain = loadConfig(REQUIRED, 'api');
    expect([plain.connectorSecretPrevious, plain.linkSecretPrevious]).to.deep.equal([undefined, undefined]);
    const overlap = loadConfig(
      {
        ...REQUIRED,
        ...HOOKS,
        CONNECTOR_SECRET_PREVIOUS: ROTATION.connector.old,
        LINK_SECRET_PREVIOUS: ROTATION.link.old,
        WEBHOOK_SECRET_PREVIOUS: ROTATION.webhook.old,
      },
      'api',
    );
    expect(overlap.connectorSecretPrevious).to.equal(ROTATION.connector.old);
    expect(overlap.linkSecretPrevious).to.equal(ROTATION.link.old);
    expect(overlap.webhooks?.previousSecret).to.equal(ROTATION.webhook.old);
  });

  it('each is validated like its current value, the problem named without the value', () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ CONNECTOR_SECRET_PREVIOUS: 'short-previous' }, 'CONNECTOR_SECRET_PREVIOUS', 'must be at least 32 characters'],
      [{ LINK_SECRET_PREVIOUS: 'short-previous' }, 'LINK_SECRET_PREVIOUS', 'must be at least 32 characters'],
      [
        { ...HOOKS, WEBHOOK_SECRET_PREVIOUS: 'whsec_dG9vLXNob3J0' },
        'WEBHOOK_SECRET_PREVIOUS',
        'must be whsec_ followed by the base64 of 24 to 64 random bytes',
      ],
    ];
    for (const [env, name, reason] of cases) {
      const found = problems(env);
      expect(found, name).to.deep.equal([{ name, reason }]);
      for (const value of Object.values(env)) if (value) expect(JSON.stringify(found)).to.not.contain(value);
    }
  });

  it('each is refused when equal to its current value, naming the previous variable', () => {
    expect(problems({ CONNECTOR_SECRET_PREVIOUS: REQUIRED.CONNECTOR_SECRET })).to.deep.equal([
      { name: 'CONNECTOR_SECRET_PREVIOUS', reason: 'must differ from CONNECTOR_SECRET' },
    ]);
    expect(problems({ LINK_SECRET_PREVIOUS: REQUIRED.LINK_SECRET })).to.deep.equal([
      { name: 'LINK_SECRET_PREVIOUS', reason: 'must differ from LINK_SECRET' },
    ]);
    expect(problems({ ...HOOKS, WEBHOOK_SECRET_PREVIOUS: HOOKS.WEBHOOK_SECRET })).to.deep.equal([
      { name: 'WEBHOOK_SECRET_PREVIOUS', reason: 'must differ from WEBHOOK_SECRET' },
    ]);
  });

  it('WEBHOOK_SECRET_PREVIOUS without WEBHOOK_SECRET is refused, naming it', () => {
    expect(problems({ WEBHOOK_SECRET_PREVIOUS: ROTATION.webhook.old })).to.deep.equal([
      { name: 'WEBHOOK_SECRET_PREVIOUS', reason: 'is only meaningful beside WEBHOOK_SECRET' },
    ]);
  });
});
