import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { postLink } from '../support/link-requests';

for (const backend of BACKENDS) {
  describe(`link, revoke and bearer tokens [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend);
    });
    after(async () => c.close());

    const key = deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey;

    it('POST /v1/link with the secret answers 201 with a Bearer token, a connection id and the revoke URL', async () => {
      const res = await postLink(c.call, { subject: 'alice@example.com', secret: BASE_ENV.LINK_SECRET });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ token_type: 'Bearer', subject: 'alice@example.com', revoke_url: BASE_ENV.DASHBOARD_URL });
      expect(res.body.connection_id).to.match(/^conn_/);
      const claims = jwt.decode(res.body.token, { complete: true }) as jwt.Jwt;
      expect(claims.header.alg).to.equal('HS256');
      expect(claims.payload).to.include({
        iss: BASE_ENV.PUBLIC_URL,
        aud: BASE_ENV.PUBLIC_URL,
        sub: 'alice@example.com',
        jti: res.body.connection_id,
      });
      expect(new Date(res.body.expires_at).getTime() / 1000).to.equal((claims.payload as jwt.JwtPayload).exp);
    });

    it('the token is not signed with the raw CONNECTOR_SECRET but with a derived key', async () => {
      const { token } = (await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body;
      expect(() => jwt.verify(token, BASE_ENV.CONNECTOR_SECRET, { algorithms: ['HS256'] })).to.throw(/invalid signature/);
      expect(() => jwt.verify(token, key, { algorithms: ['HS256'] })).to.not.throw();
    });

    it('each link makes a new connection, and GET /v1/me shows who the token acts for', async () => {
      const subject = newSubject();
      const a = (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).body;
      const b = (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).body;
      expect(a.connection_id).to.not.equal(b.connection_id);
      const me = await c.call('GET', '/v1/me', { token: b.token });
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.include({
        subject,
        connection_id: b.connection_id,
        revoke_url: BASE_ENV.DASHBOARD_URL,
        expires_at: b.expires_at,
      });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
    });

    it('a missing and a wrong x-link-secret both answer the same 401 and mint nothing', async () => {
      const missing = await postLink(c.call, { subject: 'x', secret: null });
      const wrong = await postLink(c.call, { subject: 'x', secret: `${BASE_ENV.LINK_SECRET}x` });
      expect(missing.status).to.equal(401);
      expect(wrong.status).to.equal(401);
      expect({ ...missing.body, request_id: 0 }).to.deep.equal({ ...wrong.body, request_id: 0 });
      expect(wrong.text).to.not.contain(BASE_ENV.LINK_SECRET);
    });

    it('a subject is trimmed; an empty, over-long or control-character subject answers 400', async () => {
      expect((await postLink(c.call, { subject: '  bob  ', secret: BASE_ENV.LINK_SECRET })).body.subject).to.equal('bob');
      for (const subject of ['   ', 'x'.repeat(257), 'a\u0000b', 'tab\there', 'c1\u0085']) {
        expect((await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).status, JSON.stringify(subject)).to.equal(400);
      }
      expect((await postLink(c.call, { subject: 'x'.repeat(256), secret: BASE_ENV.LINK_SECRET })).status).to.equal(201);
    });

    it('a link body with unknown fields or without subject answers 400', async () => {
      expect((await postLink(c.call, { body: { subject: 'a', admin: true }, secret: BASE_ENV.LINK_SECRET })).status).to.equal(400);
      expect((await postLink(c.call, { body: {}, secret: BASE_ENV.LINK_SECRET })).status).to.equal(400);
      expect((await postLink(c.call, { body: { subject: 42 }, secret: BASE_ENV.LINK_SECRET })).status).to.equal(400);
    });

    it('revoking a connection makes its token answer 401 on the next request, other connections unaffected', async () => {
      const subject = newSubject();
      const a = (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).body;
      const b = (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).body;
      const res = await c.call('POST', '/v1/link/revoke', {
        body: { connection_id: a.connection_id },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ revoked: 1 });
      const refused = await c.call('GET', '/v1/me', { token: a.token });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.match(/^Bearer /);
      expect((await c.call('GET', '/v1/me', { token: b.token })).status).to.equal(200);
      const again = await c.call('POST', '/v1/link/revoke', {
        body: { connection_id: a.connection_id },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(again.body).to.deep.equal({ revoked: 0 });
    });

    it('revoking by subject revokes all of that subject’s connections and no one else’s', async () => {
      const subject = newSubject();
      const tokens = [
        (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).body.token,
        (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET })).body.token,
      ];
      const bystander = (await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token;
      const res = await c.call('POST', '/v1/link/revoke', { body: { subject }, headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } });
      expect(res.body).to.deep.equal({ revoked: 2 });
      for (const token of tokens) expect((await c.call('GET', '/v1/me', { token })).status).to.equal(401);
      expect((await c.call('GET', '/v1/me', { token: bystander })).status).to.equal(200);
    });

    it('revoke without the link secret answers 401; with both fields or neither, 400', async () => {
      expect((await c.call('POST', '/v1/link/revoke', { body: { subject: 'a' } })).status).to.equal(401);
      const headers = { 'x-link-secret': BASE_ENV.LINK_SECRET };
      expect((await c.call('POST', '/v1/link/revoke', { body: { subject: 'a', connection_id: 'b' }, headers })).status).to.equal(400);
      expect((await c.call('POST', '/v1/link/revoke', { body: {}, headers })).status).to.equal(400);
    });
  });
}
