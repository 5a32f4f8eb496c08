import { expect } from 'chai';
import type { Logger } from 'pino';
import type { Config } from '../../../../../shared/platform/config/config';
import type { Metrics } from '../../../../../shared/platform/metrics/metrics';
import { announceSecretOverlap, previousSecrets } from '../../../../../shared/platform/secrets/secret-overlap';

type Secrets = Pick<Config, 'connectorSecretPrevious' | 'linkSecretPrevious' | 'webhooks'>;
const NONE: Secrets = { connectorSecretPrevious: undefined, linkSecretPrevious: undefined, webhooks: undefined };
const ALL = {
  connectorSecretPrevious: 'old-connector',
  linkSecretPrevious: 'old-link',
  webhooks: { previousSecret: 'whsec_old' },
} as unknown as Secrets;

/** Announces `config` to a recording logger and metrics; returns what each received. */
function announce(config: Secrets) {
  const warnings: Array<[Record<string, unknown>, string]> = [];
  const recorded: unknown[] = [];
  const logger = { warn: (fields: Record<string, unknown>, message: string) => warnings.push([fields, message]) } as unknown as Logger;
  const metrics = { recordPreviousSecrets: (configured: unknown) => recorded.push(configured) } as unknown as Metrics;
  announceSecretOverlap(config, logger, metrics);
  return { warnings, recorded };
}

describe('the secret rotation overlap', () => {
  it('previousSecrets: false for each secret without a previous value, true for each with one', () => {
    expect(previousSecrets(NONE)).to.deep.equal({ connector: false, link: false, webhook: false });
    expect(previousSecrets(ALL)).to.deep.equal({ connector: true, link: true, webhook: true });
    expect(previousSecrets({ ...NONE, linkSecretPrevious: 'old' })).to.deep.equal({ connector: false, link: true, webhook: false });
  });

  it('no previous secret: the gauge is recorded as all off and nothing is logged', () => {
    const { warnings, recorded } = announce(NONE);
    expect(recorded).to.deep.equal([{ connector: false, link: false, webhook: false }]);
    expect(warnings).to.deep.equal([]);
  });

  it('previous secrets set: one warning naming the variables, never their values', () => {
    const { warnings, recorded } = announce(ALL);
    expect(recorded).to.deep.equal([{ connector: true, link: true, webhook: true }]);
    expect(warnings).to.have.length(1);
    const [fields, message] = warnings[0];
    expect(fields).to.deep.equal({ previous_secrets: ['CONNECTOR_SECRET_PREVIOUS', 'LINK_SECRET_PREVIOUS', 'WEBHOOK_SECRET_PREVIOUS'] });
    expect(message).to.contain('CONNECTOR_SECRET_PREVIOUS, LINK_SECRET_PREVIOUS, WEBHOOK_SECRET_PREVIOUS');
    for (const value of ['old-connector', 'old-link', 'whsec_old']) expect(JSON.stringify(warnings)).to.not.contain(value);
  });
});
