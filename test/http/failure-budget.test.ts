import { expect } from 'chai';
import { newConfidentialClient } from '../../shared/domain/oauth/confidential-client';
import { BACKENDS } from '../support/backends';
import { newClientAddress } from '../support/client-addresses';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { postToolsListFrom } from '../support/mcp-client';
import { answerConsent, authorize, authorizeParams, codeForm, pendingRequestId, tokenRequest } from '../support/oauth-helpers';
import { scrape, sumOf } from '../support/prometheus-text';

const BUDGET = 20;
const CONCURRENT = 300;
const CALLBACK = 'https://platform.example/oauth/callback';

/** How many answers had each status, e.g. `{ 401: 20, 429: 280 }`. */
function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** The `auth-failures` member of a RateLimit header, e.g. `{ r: 0, t: 42 }`. */
function authFailures(header: string | null): Record<string, number> | undefined {
  const item = (header ?? '')
    .split(',')
    .map((s) => s.trim())
    .find((s) => s.startsWith('"auth-failures";'));
  return item === undefined
    ? undefined
    : Object.fromEntries(
        item
          .split(';')
          .slice(1)
          .map((p) => p.split('='))
          .map(([k, v]) => [k, Number(v)]),
      );
}

for (const backend of BACKENDS) {
  describe(`the failed-authentication budget under ${CONCURRENT} concurrent failures from one address [${backend}]`, function () {
    this.timeout(60_000);
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { AUTH_FAILURES_PER_MINUTE: String(BUDGET), TRUST_PROXY: '1' });
    });
    after(async () => c?.close());

    const failures = async (reason: string) => sumOf(await scrape(c.metricsUrl), 'connector_auth_failures_total', { reason });

    it(`${CONCURRENT} concurrent wrong link secrets: exactly ${BUDGET} answer 401 and the rest 429; the right secret from there then links`, async () => {
      const address = newClientAddress();
      const refusedBefore = await failures('too_many_failures');
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          c.call('POST', '/v1/link', {
            body: { subject: newSubject() },
            headers: { 'x-link-secret': `wrong-${i}`, 'x-forwarded-for': address },
          }),
        ),
      );
      expect(tally(answers.map((a) => a.status))).to.deep.equal({ 401: BUDGET, 429: CONCURRENT - BUDGET });
      expect((await failures('too_many_failures')) - refusedBefore).to.equal(CONCURRENT - BUDGET);
      const right = await c.call('POST', '/v1/link', {
        body: { subject: newSubject() },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET, 'x-forwarded-for': address },
      });
      expect(right.status, right.text).to.equal(201);
    });

    it(`${CONCURRENT} concurrent junk bearer tokens, half on GET /v1/me and half on POST /mcp: exactly ${BUDGET} answer 401 and the rest 429; a valid token from there answers 200 on both`, async () => {
      const address = newClientAddress();
      const token = await c.link(newSubject());
      const mcp = (bearer: string) => postToolsListFrom(c.baseUrl, bearer, address);
      const statuses = await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, i) =>
          i % 2
            ? (await mcp(`junk.${i}.token`)).status
            : (await c.call('GET', '/v1/me', { token: `junk.${i}.token`, headers: { 'x-forwarded-for': address } })).status,
        ),
      );
      expect(tally(statuses)).to.deep.equal({ 401: BUDGET, 429: CONCURRENT - BUDGET });
      expect((await c.call('GET', '/v1/me', { token, headers: { 'x-forwarded-for': address } })).status).to.equal(200);
      expect((await mcp(token)).status).to.equal(200);
    });
  });

  describe(`the failed-authentication budget at the OAuth token endpoint [${backend}]`, function () {
    this.timeout(60_000);
    const { record, secret } = newConfidentialClient('Budget GPT', [CALLBACK]);
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, {
        AUTH_FAILURES_PER_MINUTE: String(BUDGET),
        TRUST_PROXY: '1',
        OAUTH_CLIENTS: JSON.stringify([record]),
      });
    });
    after(async () => c?.close());

    /** A code for the confidential client, approved by the dashboard (from the test's own address). */
    async function code() {
      const { params, pkce } = authorizeParams(c, record.client_id, { redirect_uri: CALLBACK });
      const redirect = await answerConsent(c, await pendingRequestId(await authorize(c.baseUrl, params)), { subject: newSubject() });
      return { code: redirect.searchParams.get('code')!, verifier: pkce.verifier };
    }

    it(`wrong client secrets and invalid grants from one address spend one budget: ${BUDGET} refused as usual, then 429; a valid exchange and refresh from there answer 200`, async () => {
      const address = newClientAddress();
      const from = { 'x-forwarded-for': address };
      const valid = await code();
      const answers = [];
      for (let i = 0; i < BUDGET + 4; i++) {
        const form =
          i % 2
            ? { ...codeForm(record.client_id, `made-up-code-${i}`, valid.verifier, CALLBACK), client_secret: secret }
            : { ...codeForm(record.client_id, valid.code, valid.verifier, CALLBACK), client_secret: `wrong-${i}` };
        answers.push(await tokenRequest(c.baseUrl, form, from));
      }
      expect(answers.map((a) => `${a.status} ${a.body.error}`)).to.deep.equal([
        ...Array.from({ length: BUDGET }, (_, i) => (i % 2 ? '400 invalid_grant' : '401 invalid_client')),
        ...Array(4).fill('429 temporarily_unavailable'),
      ]);
      const refused = answers[answers.length - 1];
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
      expect(authFailures(refused.headers.get('ratelimit'))).to.include({ r: 0 });
      expect(authFailures(answers[0].headers.get('ratelimit')), 'a counted failure announces what is left').to.include({ r: BUDGET - 1 });

      const exchanged = await tokenRequest(
        c.baseUrl,
        { ...codeForm(record.client_id, valid.code, valid.verifier, CALLBACK), client_secret: secret },
        from,
      );
      expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
      const refreshed = await tokenRequest(
        c.baseUrl,
        { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token, client_id: record.client_id, client_secret: secret },
        from,
      );
      expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
      expect((await c.call('GET', '/v1/me', { token: refreshed.body.access_token, headers: from })).status).to.equal(200);
    });
  });
}
