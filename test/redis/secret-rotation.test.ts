import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { type RunningApi, startApi } from '../../api/start-api';
import { type Config, loadConfig } from '../../shared/platform/config/config';
import { createLogger } from '../../shared/platform/logging/logger';
import { type Call, checkedClient } from '../support/checked-client';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { linkedToken } from '../support/link-requests';
import { LogCapture } from '../support/log-capture';
import {
  answerConsent,
  authorize,
  authorizeParams,
  codeFor,
  codeForm,
  oauthTarget,
  pendingRequestId,
  tokenRequest,
} from '../support/oauth-helpers';
import { jwtHeader, keyIdOf, phaseEnv, previousUses, ROTATION, tokenUnder, verifiesWith } from '../support/rotation';
import { type Received, WebhookReceiver } from '../support/webhook-receiver';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

/** An in-process API on a given Redis and secret, answering through the OpenAPI-checked client. */
interface Api {
  config: Config;
  call: Call;
  api: RunningApi;
}

async function startOn(redis: TestRedis, prefix: string, secret: string): Promise<Api> {
  const env = { ...BASE_ENV, CONNECTOR_SECRET: secret, REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix };
  const config = loadConfig(env, 'dev');
  const api = await startApi(config, createLogger(config.logLevel, 'rotation-test', new LogCapture()), { env });
  const baseUrl = `http://127.0.0.1:${api.port}`;
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, { what: 'the API to be ready' });
  return { config, api, call: (await checkedClient(baseUrl)).call };
}

describe('a CONNECTOR_SECRET rotation on a shared private Redis keeps idempotency', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let before_: Api | undefined;
  let after_: Api | undefined;
  const prefix = `rotation-${randomBytes(4).toString('hex')}:`;

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await before_?.api.close();
    await after_?.api.close();
    await redis?.stop();
  });

  it('a retry with the same key after the rotation and a re-link replays the same job, charged once; another input is a 422', async () => {
    const subject = newSubject();
    const key = newKey();
    before_ = await startOn(redis, prefix, 'secret-A-0123456789-abcdefghijklmnopqrstuv');
    const oldToken = await linkedToken(before_.call, { subject, secret: before_.config.linkSecret });
    const first = await submitPrompt(before_, oldToken, 'paid once', { key });
    expect(first.status, first.text).to.equal(202);
    await before_.api.close();
    before_ = undefined;

    // The operator rotates the secret: every old token dies, and the person links again.
    after_ = await startOn(redis, prefix, 'secret-B-0123456789-abcdefghijklmnopqrstuv');
    expect((await after_.call('GET', '/v1/me', { token: oldToken })).status).to.equal(401);
    const token = await linkedToken(after_.call, { subject, secret: after_.config.linkSecret });
    const retry = await submitPrompt(after_, token, 'paid once', { key });
    expect(retry.status, retry.text).to.equal(202);
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    expect(retry.body.id).to.equal(first.body.id);

    const other = await submitPrompt(after_, token, 'something else', { key });
    expect(other.status, other.text).to.equal(422);
    const me = await after_.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  });
});

/** What phase 1 (before the rotation) leaves for the later phases to try. */
interface Minted {
  subject: string;
  key: string;
  jobId: string;
  /** A `/v1/link` token, and one for the same connection without a kid (as issued before key ids). */
  token: string;
  legacyToken: string;
  /** An OAuth grant's refresh token, and an authorization code not yet redeemed. */
  refreshToken: string;
  clientId: string;
  code: { code: string; verifier: string; clientId: string };
  /** A consent request the dashboard has not answered yet. */
  pendingRequest: string;
}

/** The first delivery whose payload is about `subject`, whatever secret it verifies under. */
async function deliveryAbout(receiver: WebhookReceiver, subject: string): Promise<Received> {
  return waitFor(() => receiver.received.find((r) => (JSON.parse(r.body) as { data?: { subject?: string } }).data?.subject === subject), {
    what: `a delivery about ${subject}`,
    timeoutMs: 20_000,
  });
}

describe('a rotation of every secret through three restarts on one Redis: before, during the overlap, after', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let receiver: WebhookReceiver;
  let connector: ConnectorUnderTest | undefined;
  const prefix = `rotation-${randomBytes(4).toString('hex')}:`;
  const { connector: cs, link: ls, webhook: ws } = ROTATION;
  let minted: Minted;
  /** Minted during the overlap, under the new secret: must outlive the overlap's end. */
  let duringToken: string;
  let duringRefresh: string;

  const start = async (phase: 'before' | 'during' | 'after') => {
    await connector?.close();
    connector = await startConnector('redis', { ...phaseEnv(phase, receiver.url), REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    return connector;
  };
  const oauth = (c: ConnectorUnderTest, linkSecret: string) => oauthTarget(c, { publicUrl: c.config.publicUrl, linkSecret });
  const linkWith = (c: ConnectorUnderTest, secret: string, subject: string) =>
    c.call('POST', '/v1/link', { body: { subject }, headers: { 'x-link-secret': secret } });

  before(async () => {
    redis = await startRedis();
    receiver = await WebhookReceiver.start(ws.new);
  });
  after(async () => {
    await connector?.close();
    await receiver?.close();
    await redis?.stop();
  });

  it('before: tokens carry the old key id; a job is accepted and charged; deliveries verify under the old webhook secret', async () => {
    const c = await start('before');
    expect(c.logs.text()).to.not.contain('secret rotation overlap active');
    const subject = newSubject();
    const linked = await linkWith(c, ls.old, subject);
    expect(linked.status, linked.text).to.equal(201);
    expect(jwtHeader(linked.body.token).kid).to.equal(keyIdOf(cs.old));
    const key = newKey();
    const job = await submitPrompt(c, linked.body.token, 'rotated', { key });
    expect(job.status, job.text).to.equal(202);
    const granted = await codeFor(oauth(c, ls.old), subject);
    const exchanged = await tokenRequest(c.baseUrl, codeForm(granted.clientId, granted.code, granted.verifier));
    expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
    expect(jwtHeader(exchanged.body.access_token).kid).to.equal(keyIdOf(cs.old));
    const unredeemed = await codeFor(oauth(c, ls.old), subject, granted.clientId);
    const { params } = authorizeParams(oauth(c, ls.old), granted.clientId);
    const pendingRequest = await pendingRequestId(await authorize(c.baseUrl, params));
    const delivered = await deliveryAbout(receiver, subject);
    expect([verifiesWith(ws.old, delivered), verifiesWith(ws.new, delivered)]).to.deep.equal([true, false]);
    minted = {
      subject,
      key,
      jobId: job.body.id,
      token: linked.body.token,
      legacyToken: tokenUnder(cs.old, c.config.publicUrl, subject, linked.body.connection_id, { kid: false }),
      refreshToken: exchanged.body.refresh_token,
      clientId: granted.clientId,
      code: { code: unredeemed.code, verifier: unredeemed.verifier, clientId: granted.clientId },
      pendingRequest,
    };
    expect((await c.call('GET', '/v1/me', { token: minted.legacyToken })).status).to.equal(200);
  });

  it('during: everything the old secrets made works and is counted, new tokens carry the new key id, a wrong secret gets 401, the job replays uncharged, deliveries verify under either webhook secret', async () => {
    const c = await start('during');
    const announced = c.logs.lines.filter((line) => line.includes('secret rotation overlap active'));
    expect(announced).to.have.length(1);
    for (const value of [cs.old, cs.new, ls.old, ls.new, ws.old, ws.new]) expect(c.logs.text()).to.not.contain(value);
    const [connectorUses, linkUses] = [await previousUses(c.metricsUrl, 'connector'), await previousUses(c.metricsUrl, 'link')];

    for (const token of [minted.token, minted.legacyToken]) {
      const me = await c.call('GET', '/v1/me', { token });
      expect(me.status, me.text).to.equal(200);
      expect(me.body.subject).to.equal(minted.subject);
    }
    const replay = await submitPrompt(c, minted.token, 'rotated', { key: minted.key });
    expect(replay.status, replay.text).to.equal(202);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.id).to.equal(minted.jobId);
    expect(await previousUses(c.metricsUrl, 'connector')).to.equal(connectorUses + 3);

    const refreshed = await tokenRequest(c.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: minted.refreshToken,
      client_id: minted.clientId,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    expect(jwtHeader(refreshed.body.access_token).kid).to.equal(keyIdOf(cs.new));
    duringRefresh = refreshed.body.refresh_token;
    const redeemed = await tokenRequest(c.baseUrl, codeForm(minted.code.clientId, minted.code.code, minted.code.verifier));
    expect(redeemed.status, JSON.stringify(redeemed.body)).to.equal(200);
    const answered = await answerConsent(oauth(c, ls.old), minted.pendingRequest, { subject: minted.subject });
    expect(answered.searchParams.get('code')).to.be.a('string');

    const byOld = await linkWith(c, ls.old, minted.subject);
    expect(byOld.status, byOld.text).to.equal(201);
    expect(jwtHeader(byOld.body.token).kid).to.equal(keyIdOf(cs.new));
    const byNew = await linkWith(c, ls.new, newSubject());
    expect(byNew.status, byNew.text).to.equal(201);
    duringToken = byNew.body.token;
    expect((await linkWith(c, 'rotation-wrong-link-secret', newSubject())).status).to.equal(401);
    expect(
      (
        await c.call('GET', '/v1/me', {
          token: tokenUnder('another-secret-entirely-0123456789abcdef', c.config.publicUrl, minted.subject, byOld.body.connection_id),
        })
      ).status,
    ).to.equal(401);
    // The consent answer and the link: two admissions by the previous link secret.
    expect(await previousUses(c.metricsUrl, 'link')).to.equal(linkUses + 2);

    const me = await c.call('GET', '/v1/me', { token: byOld.body.token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    const delivered = await deliveryAbout(receiver, byNew.body.subject);
    expect([verifiesWith(ws.old, delivered), verifiesWith(ws.new, delivered)]).to.deep.equal([true, true]);
  });

  it('after: the old token and link secret get 401, what the overlap minted works, the job still replays uncharged, deliveries verify under the new webhook secret only', async () => {
    const c = await start('after');
    expect(c.logs.text()).to.not.contain('secret rotation overlap active');
    for (const token of [minted.token, minted.legacyToken]) expect((await c.call('GET', '/v1/me', { token })).status).to.equal(401);
    expect((await linkWith(c, ls.old, newSubject())).status).to.equal(401);
    expect((await c.call('GET', '/v1/me', { token: duringToken })).status).to.equal(200);
    const refreshed = await tokenRequest(c.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: duringRefresh,
      client_id: minted.clientId,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    const replay = await submitPrompt(c, refreshed.body.access_token, 'rotated', { key: minted.key });
    expect(replay.status, replay.text).to.equal(202);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.id).to.equal(minted.jobId);
    const me = await c.call('GET', '/v1/me', { token: refreshed.body.access_token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    expect(await previousUses(c.metricsUrl, 'connector')).to.equal(0);
    expect(await previousUses(c.metricsUrl, 'link')).to.equal(0);
    const subject = newSubject();
    expect((await linkWith(c, ls.new, subject)).status).to.equal(201);
    const delivered = await deliveryAbout(receiver, subject);
    expect([verifiesWith(ws.old, delivered), verifiesWith(ws.new, delivered)]).to.deep.equal([false, true]);
  });
});
