import { expect } from 'chai';
import { devConsentAllowed } from '../../../../../shared/domain/oauth/dev-consent';

describe('dev consent page', () => {
  it('the dev consent page is allowed only with a loopback PUBLIC_URL, a loopback listener and no CONSENT_URL', () => {
    const local = { publicUrl: 'http://localhost:8787', host: '127.0.0.1', oauth: { consentUrlSet: false } };
    expect(devConsentAllowed(local)).to.equal(true);
    expect(devConsentAllowed({ ...local, publicUrl: 'http://[::1]:8787', host: '::1' })).to.equal(true);
    expect(devConsentAllowed({ ...local, oauth: { consentUrlSet: true } }), 'CONSENT_URL set').to.equal(false);
    expect(devConsentAllowed({ ...local, publicUrl: 'https://connector.example.com' }), 'public PUBLIC_URL').to.equal(false);
    for (const host of [undefined, '0.0.0.0', '192.0.2.2', 'fd00::2', '::ffff:192.0.2.2']) {
      expect(devConsentAllowed({ ...local, host }), `listening on ${host ?? 'every interface'}`).to.equal(false);
    }
  });
});
