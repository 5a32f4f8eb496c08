import { expect } from 'chai';
import { loadConfig } from '../../shared/platform/config/config';
import { ConfigError } from '../../shared/platform/errors/config-error';
import { secretsMatcher } from '../../shared/platform/secrets/secret-equals';
import { BASE_ENV } from '../support/harness';
import { ROTATION } from '../support/rotation';

const REQUIRED = {
  CONNECTOR_SECRET: BASE_ENV.CONNECTOR_SECRET,
  PUBLIC_URL: BASE_ENV.PUBLIC_URL,
  DASHBOARD_URL: BASE_ENV.DASHBOARD_URL,
  LINK_SECRET: BASE_ENV.LINK_SECRET,
};
const HOOKS = { WEBHOOK_URL: 'https://dashboard.example.com/hooks', WEBHOOK_SECRET: ROTATION.webhook.new };

/** The problems `loadConfig` reports for `env` (names and reasons), or none. */
function problems(env: Record<string, string>): ReadonlyArray<{ name: string; reason: string }> {
  try {
    loadConfig({ ...REQUIRED, ...env }, 'api');
    return [];
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

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

describe('the link secret matcher during an overlap', () => {
  it('tells the current value from the previous one and refuses anything else, a prefix or an absent header included', () => {
    const match = secretsMatcher('current-secret', 'previous-secret');
    expect(match('current-secret')).to.equal('current');
    expect(match('previous-secret')).to.equal('previous');
    for (const other of ['current-secre', 'previous-secret ', '', 'other', undefined])
      expect(match(other), String(other)).to.equal(undefined);
  });

  it('without a previous value, matches only the current one', () => {
    const match = secretsMatcher('current-secret');
    expect(match('current-secret')).to.equal('current');
    expect(match('previous-secret')).to.equal(undefined);
  });
});
