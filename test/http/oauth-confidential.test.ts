import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { newConfidentialClient } from '../../shared/domain/oauth/confidential-client';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { answerConsent, authorize, authorizeParams, codeForm, pendingRequestId, tokenRequest } from '../support/oauth-helpers';
import { childEnv } from '../testkit/child-env';

const GPT_CALLBACK = 'https://chat.openai.com/aip/g-test/oauth/callback';
const run = promisify(execFile);

/** GPT Actions' shape: a confidential client with a typed-in id and secret completes the code flow. */
async function codeFlow(connector: ConnectorUnderTest, clientId: string) {
  const { params, pkce } = authorizeParams(connector, clientId, { redirect_uri: GPT_CALLBACK });
  const request = await pendingRequestId(await authorize(connector.baseUrl, params));
  const redirect = await answerConsent(connector, request, { subject: newSubject() });
  expect(`${redirect.origin}${redirect.pathname}`).to.equal(GPT_CALLBACK);
  return { code: redirect.searchParams.get('code')!, verifier: pkce.verifier };
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe('OAuth 2.1 pre-registered confidential clients (GPT Actions) [memory, OAUTH_CLIENTS]', function () {
  this.timeout(60_000);
  const { record, secret } = newConfidentialClient('My GPT', [GPT_CALLBACK]);
  let connector: ConnectorUnderTest;
  before(async () => {
    connector = await startConnector('memory', { OAUTH_CLIENTS: JSON.stringify([record]) });
  });
  after(async () => connector?.close());

  it('the stored record holds a hash of the secret, never the secret', () => {
    expect(JSON.stringify(record)).to.not.include(secret);
  });

  it('its authorize errors go back to its redirect URI before anyone approved it: the operator registered that URI', async () => {
    const { params, state } = authorizeParams(connector, record.client_id, { redirect_uri: GPT_CALLBACK, code_challenge_method: 'plain' });
    const res = await authorize(connector.baseUrl, params);
    expect(res.status).to.equal(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).to.equal(GPT_CALLBACK);
    expect(location.searchParams.get('error')).to.equal('invalid_request');
    expect(location.searchParams.get('state')).to.equal(state);
  });

  it('completes the code flow with client_secret_post', async () => {
    const { code, verifier } = await codeFlow(connector, record.client_id);
    const res = await tokenRequest(connector.baseUrl, {
      ...codeForm(record.client_id, code, verifier, GPT_CALLBACK),
      client_secret: secret,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect((await connector.call('GET', '/v1/me', { token: res.body.access_token })).body.client).to.deep.equal({
      client_id: record.client_id,
      client_name: 'My GPT',
    });
  });

  it('completes the code flow with client_secret_basic, and refreshes with it', async () => {
    const { code, verifier } = await codeFlow(connector, record.client_id);
    const { client_id: _omitted, ...form } = codeForm(record.client_id, code, verifier, GPT_CALLBACK);
    const res = await tokenRequest(connector.baseUrl, form, { authorization: basic(record.client_id, secret) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const refreshed = await tokenRequest(
      connector.baseUrl,
      { grant_type: 'refresh_token', refresh_token: res.body.refresh_token },
      { authorization: basic(record.client_id, secret) },
    );
    expect(refreshed.status).to.equal(200);
  });

  it("a refresh token presented with another confidential client's valid secret is refused, and still works for its own client", async () => {
    const other = newConfidentialClient('Other GPT', [GPT_CALLBACK]);
    const twoClients = await startConnector('memory', { OAUTH_CLIENTS: JSON.stringify([record, other.record]) });
    try {
      const { code, verifier } = await codeFlow(twoClients, record.client_id);
      const issued = await tokenRequest(twoClients.baseUrl, codeForm(record.client_id, code, verifier, GPT_CALLBACK), {
        authorization: basic(record.client_id, secret),
      });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
      const refresh = (id: string, clientSecret: string) =>
        tokenRequest(
          twoClients.baseUrl,
          { grant_type: 'refresh_token', refresh_token: issued.body.refresh_token },
          { authorization: basic(id, clientSecret) },
        );
      const stolen = await refresh(other.record.client_id, other.secret);
      expect(stolen.status).to.equal(400);
      expect(stolen.body.error).to.equal('invalid_grant');
      expect((await refresh(record.client_id, secret)).status).to.equal(200);
    } finally {
      await twoClients.close();
    }
  });

  it('a wrong or missing secret is 401 invalid_client, and the Basic attempt gets a Basic challenge', async () => {
    const { code, verifier } = await codeFlow(connector, record.client_id);
    const form = codeForm(record.client_id, code, verifier, GPT_CALLBACK);
    const missing = await tokenRequest(connector.baseUrl, form);
    expect(missing.status).to.equal(401);
    expect(missing.body.error).to.equal('invalid_client');
    const wrong = await tokenRequest(connector.baseUrl, {}, { authorization: basic(record.client_id, 'wrong') });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('www-authenticate')).to.match(/^Basic/);
  });
});

describe('OAuth 2.1 pre-registered confidential clients (GPT Actions) [redis, npm run oauth:client]', function () {
  this.timeout(120_000);
  let connector: ConnectorUnderTest;
  before(async () => {
    connector = await startConnector('redis');
  });
  after(async () => connector?.close());

  it('the script stores the client in Redis and prints id and secret once; the client completes the flow with client_secret_basic', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/oauth-client.ts', '--name', 'Redis GPT', '--redirect-uri', GPT_CALLBACK],
      {
        env: {
          ...childEnv(),
          REDIS_URL: connectionUrl(connector.config.redis),
          REDIS_KEY_PREFIX: connector.config.redisKeyPrefix,
        },
        timeout: 60_000,
      },
    );
    const clientId = /^client_id=(\S+)$/m.exec(stdout)![1];
    const secret = /^client_secret=(\S+)$/m.exec(stdout)![1];
    const { code, verifier } = await codeFlow(connector, clientId);
    const { client_id: _omitted, ...form } = codeForm(clientId, code, verifier, GPT_CALLBACK);
    const res = await tokenRequest(connector.baseUrl, form, { authorization: basic(clientId, secret) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
});
