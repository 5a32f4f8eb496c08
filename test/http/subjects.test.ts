import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, startConnector } from '../support/harness';

const secret = { 'x-link-secret': BASE_ENV.LINK_SECRET };

for (const backend of BACKENDS) {
  describe(`subjects are normalised at the edge [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend);
    });
    after(async () => c.close());

    // A fresh local part per test, with an é that can be typed composed (U+00E9) or decomposed (e + U+0301).
    const pair = () => {
      const tag = randomBytes(4).toString('hex');
      return { composed: `jos\u00e9-${tag}@example.com`, decomposed: `jose\u0301-${tag}@example.com` };
    };

    it('linking the composed and the decomposed form of a subject gives one identity, in NFC', async () => {
      const { composed, decomposed } = pair();
      const a = await c.call('POST', '/v1/link', { body: { subject: composed }, headers: secret });
      const b = await c.call('POST', '/v1/link', { body: { subject: decomposed }, headers: secret });
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      expect(b.body.subject).to.equal(composed);
      const me = await c.call('GET', '/v1/me', { token: b.body.token });
      expect(me.body.subject).to.equal(composed);
    });

    it('revoking by the decomposed form revokes tokens minted for the composed form, and the reverse', async () => {
      for (const [mintWith, revokeWith] of [
        ['composed', 'decomposed'],
        ['decomposed', 'composed'],
      ] as const) {
        const forms = pair();
        const minted = await c.call('POST', '/v1/link', { body: { subject: forms[mintWith] }, headers: secret });
        expect((await c.call('GET', '/v1/me', { token: minted.body.token })).status).to.equal(200);
        const revoked = await c.call('POST', '/v1/link/revoke', { body: { subject: forms[revokeWith] }, headers: secret });
        expect(revoked.body, `${mintWith} then revoke by ${revokeWith}`).to.deep.equal({ revoked: 1 });
        expect((await c.call('GET', '/v1/me', { token: minted.body.token })).status).to.equal(401);
      }
    });

    it('a subject with an invisible formatting character answers 400 problem+json on link and on revoke', async () => {
      for (const char of ['\u200b', '\u200f', '\u2060', '\ufeff', '\u202e']) {
        const subject = `alice${char}@example.com`;
        for (const path of ['/v1/link', '/v1/link/revoke']) {
          const res = await c.call('POST', path, { body: { subject }, headers: secret });
          expect(res.status, `${path} ${JSON.stringify(subject)}`).to.equal(400);
          expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect(res.body.errors[0].path).to.equal('/body/subject');
        }
      }
    });

    it('a subject over 1024 characters is refused by the schema before it is normalised', async () => {
      const res = await c.call('POST', '/v1/link', { body: { subject: 'a'.repeat(1025) }, headers: secret });
      expect(res.status).to.equal(400);
    });
  });
}
