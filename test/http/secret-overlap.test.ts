import { expect } from 'chai';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import { freshClaims, hmacToken } from '../support/forged-tokens';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { scrape, sumOf } from '../support/prometheus-text';
import { jwtClaims, jwtHeader, keyIdOf, phaseEnv, previousUses, ROTATION, tokenUnder, verifiesWith } from '../support/rotation';
import { WebhookReceiver } from '../support/webhook-receiver';

// One connector in a rotation's overlap (both secrets of each kind configured). What the previous secret
// signed is made here with its derived keys, as a connector configured with it alone would have made it;
// the restarts through the three phases are in test/redis/secret-rotation.test.ts.
for (const backend of BACKENDS) {
  describe(`a connector in a secret rotation's overlap [${backend}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    let receiver: WebhookReceiver;
    const { connector: cs, link: ls, webhook: ws } = ROTATION;

    before(async () => {
      receiver = await WebhookReceiver.start(ws.new);
      connector = await startConnector(backend, phaseEnv('during', receiver.url));
    });
    after(async () => {
      await connector?.close();
      await receiver?.close();
    });

    const linkWith = (secret: string | undefined, subject = newSubject()) =>
      connector.call('POST', '/v1/link', { body: { subject }, headers: secret === undefined ? {} : { 'x-link-secret': secret } });

    it('logs one warning at start naming each previous variable, never a value, and sets the configured gauge', async () => {
      const lines = connector.logs.lines.filter((line) => line.includes('secret rotation overlap active'));
      expect(lines).to.have.length(1);
      const entry = JSON.parse(lines[0]!);
      expect(entry.previous_secrets).to.deep.equal(['CONNECTOR_SECRET_PREVIOUS', 'LINK_SECRET_PREVIOUS', 'WEBHOOK_SECRET_PREVIOUS']);
      for (const value of [cs.old, cs.new, ls.old, ls.new, ws.old, ws.new]) expect(connector.logs.text()).to.not.contain(value);
      const page = await scrape(connector.metricsUrl);
      for (const secret of ['connector', 'link', 'webhook'])
        expect(sumOf(page, 'connector_previous_secret_configured', { secret }), secret).to.equal(1);
    });

    it('signs a new token under the current secret, naming its key in a kid header', async () => {
      const res = await linkWith(ls.new);
      expect(res.status, res.text).to.equal(201);
      expect(jwtHeader(res.body.token)).to.deep.include({ alg: 'HS256', kid: keyIdOf(cs.new) });
    });

    it('accepts a token signed under the previous secret, with its kid or without any, and counts each use', async () => {
      const subject = newSubject();
      const linked = await linkWith(ls.new, subject);
      const connectionId = jwtClaims(linked.body.token).jti as string;
      const withKid = tokenUnder(cs.old, connector.config.publicUrl, subject, connectionId);
      const legacy = tokenUnder(cs.old, connector.config.publicUrl, subject, connectionId, { kid: false });
      const before = await previousUses(connector.metricsUrl, 'connector');
      for (const token of [withKid, legacy, withKid]) {
        const me = await connector.call('GET', '/v1/me', { token });
        expect(me.status, me.text).to.equal(200);
        expect(me.body.subject).to.equal(subject);
      }
      // The current token is not counted: only what the previous secret alone verified.
      expect((await connector.call('GET', '/v1/me', { token: linked.body.token })).status).to.equal(200);
      expect(await previousUses(connector.metricsUrl, 'connector')).to.equal(before + 3);
    });

    it('answers a retried key sent with the previous secret’s token with the same job, charged once', async () => {
      const subject = newSubject();
      const linked = await linkWith(ls.new, subject);
      const oldToken = tokenUnder(cs.old, connector.config.publicUrl, subject, jwtClaims(linked.body.token).jti as string);
      const key = newKey();
      const first = await submitPrompt(connector, oldToken, 'overlap', { key });
      expect(first.status, first.text).to.equal(202);
      const again = await submitPrompt(connector, linked.body.token, 'overlap', { key });
      expect(again.status, again.text).to.equal(202);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.id).to.equal(first.body.id);
      const me = await connector.call('GET', '/v1/me', { token: oldToken });
      expect(me.body.usage.jobs_charged).to.equal(1);
    });

    it('refuses with 401 a token signed under another secret, or naming an unknown kid, or the previous kid with the current key', async () => {
      const subject = newSubject();
      const linked = await linkWith(ls.new, subject);
      const connectionId = jwtClaims(linked.body.token).jti as string;
      const issuer = connector.config.publicUrl;
      const stranger = 'some-other-connector-secret-0123456789abcdef';
      const claims = freshClaims(issuer, subject, connectionId);
      const forged = [
        tokenUnder(stranger, issuer, subject, connectionId),
        tokenUnder(stranger, issuer, subject, connectionId, { kid: false }),
        hmacToken({ alg: 'HS256', typ: 'JWT', kid: 'not-a-key-we-know' }, claims, deriveKeys(cs.new).tokenKey.export()),
        hmacToken({ alg: 'HS256', typ: 'JWT', kid: keyIdOf(cs.old) }, claims, deriveKeys(cs.new).tokenKey.export()),
      ];
      for (const token of forged) expect((await connector.call('GET', '/v1/me', { token })).status).to.equal(401);
    });

    it('accepts both link secrets on every link-secret operation, counts the previous one, and refuses another with 401', async () => {
      const before = await previousUses(connector.metricsUrl, 'link');
      const subject = newSubject();
      expect((await linkWith(ls.new, subject)).status).to.equal(201);
      expect((await linkWith(ls.old, subject)).status).to.equal(201);
      const listed = await connector.call('GET', `/v1/link/connections?subject=${encodeURIComponent(subject)}`, {
        headers: { 'x-link-secret': ls.old },
      });
      expect(listed.status, listed.text).to.equal(200);
      const revoked = await connector.call('POST', '/v1/link/revoke', { body: { subject }, headers: { 'x-link-secret': ls.old } });
      expect(revoked.status, revoked.text).to.equal(200);
      expect(revoked.body.revoked).to.equal(2);
      expect(await previousUses(connector.metricsUrl, 'link')).to.equal(before + 3);
      for (const wrong of ['rotation-wrong-link-secret', `${ls.old}x`, ls.new.slice(0, -1), '', undefined])
        expect((await linkWith(wrong)).status, String(wrong)).to.equal(401);
      expect(await previousUses(connector.metricsUrl, 'link')).to.equal(before + 3);
    });

    it('signs each delivery under both webhook secrets: a receiver holding either one alone verifies it', async () => {
      const subject = newSubject();
      expect((await linkWith(ls.new, subject)).status).to.equal(201);
      const delivered = await receiver.next((p) => p.type === 'connection.created' && p.data?.subject === subject, 'the delivery');
      expect(delivered.signature.split(' ')).to.have.length(2);
      expect(delivered.signature.split(' ').every((entry) => entry.startsWith('v1,'))).to.equal(true);
      expect(verifiesWith(ws.new, delivered), 'the new secret alone').to.equal(true);
      expect(verifiesWith(ws.old, delivered), 'the old secret alone').to.equal(true);
      expect(verifiesWith(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, delivered), 'another secret').to.equal(false);
    });
  });
}
