import { expect } from 'chai';
import { publicPathOf } from '../../api/middleware/public-path';
import { BACKENDS } from '../support/backends';
import { type Call, checkedClient } from '../support/checked-client';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';

const PUBLIC_URL = 'http://localhost:8787/connector';

describe('publicPathOf', () => {
  it('returns the path of a PUBLIC_URL with one, without a trailing slash', () => {
    expect(publicPathOf('https://example.com/connector')).to.equal('/connector');
    expect(publicPathOf('https://example.com/a/b/')).to.equal('/a/b');
  });

  it('returns an empty string for a PUBLIC_URL without a path', () => {
    expect(publicPathOf('https://example.com')).to.equal('');
    expect(publicPathOf('https://example.com/')).to.equal('');
  });
});

for (const kind of BACKENDS) {
  describe(`a PUBLIC_URL with a path [${kind}]`, function () {
    this.timeout(30_000);
    let connector: ConnectorUnderTest;
    /** A client that calls through the prefix, as the platform does; every answer is checked against the document. */
    let prefixed: Call;
    let token: string;

    before(async () => {
      connector = await startConnector(kind, { PUBLIC_URL });
      ({ call: prefixed } = await checkedClient(`${connector.baseUrl}/connector`));
      const linked = await prefixed('POST', '/v1/link', {
        body: { subject: newSubject() },
        headers: { 'x-link-secret': connector.config.linkSecret },
      });
      expect(linked.status, linked.text).to.equal(201);
      token = linked.body.token;
    });
    after(async () => {
      await connector?.close();
    });

    it('publishes PUBLIC_URL as the server URL, read under the prefix or at the root', async () => {
      for (const call of [prefixed, connector.call]) {
        const doc = await call('GET', '/openapi.json');
        expect(doc.status).to.equal(200);
        expect(doc.body.servers).to.deep.equal([{ url: PUBLIC_URL }]);
      }
      const llms = await prefixed('GET', '/llms.txt');
      expect(llms.text).to.include(`${PUBLIC_URL}/openapi.json`);
    });

    it('answers an operation under the prefix (an ingress that keeps it) and at the root (one that strips it)', async () => {
      const under = await prefixed('GET', '/v1/me', { token });
      const root = await connector.call('GET', '/v1/me', { token });
      expect(under.status, under.text).to.equal(200);
      expect(root.status, root.text).to.equal(200);
      expect(under.body.subject).to.equal(root.body.subject);
    });

    it('keeps the query string of a prefixed request', async () => {
      for (const name of ['first', 'second'])
        expect((await prefixed('POST', '/v1/things', { token, body: { name } })).status).to.equal(201);
      const page = await prefixed('GET', '/v1/things?limit=1', { token });
      expect(page.status, page.text).to.equal(200);
      expect(page.body.items).to.have.length(1);
      expect(page.body.next_cursor).to.be.a('string');
    });

    it('validates requests under the prefix: a body off the schema answers 400 with its errors', async () => {
      const bad = await prefixed('POST', '/v1/things', { token, body: { name: 42 } });
      expect(bad.status, bad.text).to.equal(400);
      expect(bad.body.errors).to.be.an('array').that.is.not.empty;
      const unknownQuery = await prefixed('GET', '/v1/things?bogus=1', { token });
      expect(unknownQuery.status, unknownQuery.text).to.equal(400);
    });

    it('authenticates under the prefix: no token answers 401', async () => {
      expect((await prefixed('GET', '/v1/me')).status).to.equal(401);
    });

    it('does not take a path that only starts with the same letters (/connectorx/v1/me answers 404)', async () => {
      const res = await fetch(`${connector.baseUrl}/connectorx/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    });

    it('serves the probes under the prefix too', async () => {
      expect((await fetch(`${connector.baseUrl}/connector/healthz`)).status).to.equal(200);
      expect((await fetch(`${connector.baseUrl}/connector/readyz`)).status).to.equal(200);
    });
  });
}
