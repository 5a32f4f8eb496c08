import { expect } from 'chai';
import { loadConfig } from '../../../../../shared/platform/config/config';
import type { ConfigError } from '../../../../../shared/platform/config/config-error';
import { loadWebhookSettings } from '../../../../../shared/platform/config/webhook-settings';
import { configProblems, REQUIRED_ENV as REQUIRED } from '../../../../support/config-problems';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const URL_OK = 'https://dashboard.example.com/hooks/connector';

/** The problems `loadConfig` reports for the required variables with `env` over them. */
const problems = (env: Record<string, string>) => configProblems({ ...REQUIRED, ...env });
const names = (env: Record<string, string>) => problems(env).map((p) => p.name);

describe('webhook configuration (WEBHOOK_URL, WEBHOOK_SECRET, WEBHOOK_ALLOW_PRIVATE)', () => {
  it('neither variable: no webhooks; both: the settings with their defaults', () => {
    expect(loadConfig(REQUIRED, 'api').webhooks).to.equal(undefined);
    expect(loadConfig({ ...REQUIRED, WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: SECRET }, 'api').webhooks).to.deep.equal({
      url: URL_OK,
      secret: SECRET,
      allowPrivate: false,
      retryBaseMs: 5000,
      concurrency: 16,
    });
  });

  it('one without the other names the missing one', () => {
    expect(problems({ WEBHOOK_URL: URL_OK })).to.deep.equal([{ name: 'WEBHOOK_SECRET', reason: 'is required when WEBHOOK_URL is set' }]);
    expect(problems({ WEBHOOK_SECRET: SECRET })).to.deep.equal([{ name: 'WEBHOOK_URL', reason: 'is required when WEBHOOK_SECRET is set' }]);
  });

  it('a URL that is not https (http only for exactly localhost, 127.0.0.1 or [::1]), or carries credentials, is refused', () => {
    for (const bad of [
      'http://dashboard.example.com/hook',
      'http://localhost.evil.com/hook',
      'ftp://example.com/',
      'dashboard.example.com/hook',
      'https://user:pw@example.com/hook',
      'https://example.com/hook#x',
    ]) {
      expect(names({ WEBHOOK_URL: bad, WEBHOOK_SECRET: SECRET }), bad).to.deep.equal(['WEBHOOK_URL']);
    }
  });

  it('a private, loopback or link-local address needs WEBHOOK_ALLOW_PRIVATE=true', () => {
    const privateUrls = [
      'http://localhost:9000/hook',
      'http://127.0.0.1:9000/hook',
      'http://[::1]:9000/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest',
      'https://[fd00::1]/hook',
      'https://api.localhost/hook',
    ];
    for (const url of privateUrls) {
      const found = problems({ WEBHOOK_URL: url, WEBHOOK_SECRET: SECRET });
      expect(
        found.map((p) => p.name),
        url,
      ).to.deep.equal(['WEBHOOK_URL']);
      expect(found[0].reason).to.include('WEBHOOK_ALLOW_PRIVATE');
      expect(names({ WEBHOOK_URL: url, WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE: 'true' }), url).to.deep.equal([]);
    }
    expect(loadConfig({ ...REQUIRED, WEBHOOK_URL: 'https://8.8.8.8/hook', WEBHOOK_SECRET: SECRET }, 'api').webhooks?.allowPrivate).to.equal(
      false,
    );
  });

  it('the opt-in does not allow plain http to a private address other than loopback', () => {
    expect(names({ WEBHOOK_URL: 'http://10.1.2.3/hook', WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_PRIVATE: 'true' })).to.deep.equal([
      'WEBHOOK_URL',
    ]);
  });

  it('a secret must be whsec_ and the base64 of 24 to 64 bytes; the message never echoes it', () => {
    const secret = (bytes: number) => `whsec_${Buffer.alloc(bytes, 1).toString('base64')}`;
    for (const bad of [
      'whsec_',
      secret(23),
      secret(65),
      Buffer.alloc(32, 1).toString('base64'),
      'whsec_not*base64*at*all*here*',
      `${secret(32)}!`,
    ]) {
      const found = problems({ WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: bad });
      expect(
        found.map((p) => p.name),
        bad,
      ).to.deep.equal(['WEBHOOK_SECRET']);
      expect(JSON.stringify(found)).to.not.include(bad.slice(6) || 'whsec_x');
    }
    for (const ok of [secret(24), secret(64)]) expect(names({ WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: ok })).to.deep.equal([]);
  });

  it('WEBHOOK_ALLOW_PRIVATE, WEBHOOK_RETRY_BASE_MS and WEBHOOK_CONCURRENCY are checked', () => {
    const both = { WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: SECRET };
    expect(names({ ...both, WEBHOOK_ALLOW_PRIVATE: 'maybe' })).to.deep.equal(['WEBHOOK_ALLOW_PRIVATE']);
    expect(names({ ...both, WEBHOOK_RETRY_BASE_MS: '5' })).to.deep.equal(['WEBHOOK_RETRY_BASE_MS']);
    expect(names({ ...both, WEBHOOK_CONCURRENCY: '0' })).to.deep.equal(['WEBHOOK_CONCURRENCY']);
    expect(loadConfig({ ...REQUIRED, ...both, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_CONCURRENCY: '2' }, 'api').webhooks).to.include({
      retryBaseMs: 50,
      concurrency: 2,
    });
  });

  it('the worker reads the same variables', () => {
    const env = { ...REQUIRED, REDIS_URL: 'redis://127.0.0.1:6379', WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: SECRET };
    expect(loadConfig(env, 'worker').webhooks?.url).to.equal(URL_OK);
    try {
      loadConfig({ ...env, WEBHOOK_SECRET: '' }, 'worker');
      expect.fail('should have thrown');
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.name)).to.deep.equal(['WEBHOOK_SECRET']);
    }
  });
});

describe('loadWebhookSettings on its own (the webhook variables alone)', () => {
  it('problems reported earlier by other settings: its settings are still returned and nothing is added', () => {
    const found = [{ name: 'PORT', reason: 'is invalid' }];
    expect(loadWebhookSettings({ WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: SECRET }, found)).to.not.equal(undefined);
    expect(found).to.deep.equal([{ name: 'PORT', reason: 'is invalid' }]);
  });

  it('a receiver on a private address without WEBHOOK_ALLOW_PRIVATE: undefined, and the problem names WEBHOOK_URL', () => {
    const found: Array<{ name: string; reason: string }> = [];
    expect(loadWebhookSettings({ WEBHOOK_URL: 'https://10.0.0.8/hooks', WEBHOOK_SECRET: SECRET }, found)).to.equal(undefined);
    expect(found.map((problem) => problem.name)).to.deep.equal(['WEBHOOK_URL']);
  });
});

describe('WEBHOOK_EVENT_TYPES (the types a receiver asks for)', () => {
  const both = { WEBHOOK_URL: URL_OK, WEBHOOK_SECRET: SECRET };
  it('comma-separated names, trimmed and deduplicated; unset: every type', () => {
    expect(
      loadConfig({ ...REQUIRED, ...both, WEBHOOK_EVENT_TYPES: 'job.succeeded, report.ready,job.succeeded' }, 'api').webhooks?.eventTypes,
    ).to.deep.equal(['job.succeeded', 'report.ready']);
    expect(loadConfig({ ...REQUIRED, ...both }, 'api').webhooks?.eventTypes).to.equal(undefined);
  });

  it('an empty name, a name not lower-case dotted words, or a filter without WEBHOOK_URL is refused naming the rule', () => {
    expect(problems({ ...both, WEBHOOK_EVENT_TYPES: 'job.succeeded,' })).to.deep.equal([
      { name: 'WEBHOOK_EVENT_TYPES', reason: 'must be event type names separated by commas, none empty' },
    ]);
    expect(problems({ ...both, WEBHOOK_EVENT_TYPES: 'Report Ready' })[0].reason).to.match(/^must match /);
    expect(problems({ WEBHOOK_EVENT_TYPES: 'job.failed' })).to.deep.equal([
      { name: 'WEBHOOK_EVENT_TYPES', reason: 'is only meaningful beside WEBHOOK_URL' },
    ]);
  });
});
