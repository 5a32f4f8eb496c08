import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startApi, type RunningApi } from '../../api/start-api';
import { loadConfig, type Config } from '../../shared/platform/config/config';
import { createLogger } from '../../shared/platform/logging/logger';
import { BASE_ENV, newKey, newSubject } from '../support/harness';
import { checkedClient, type Call } from '../support/checked-client';
import { LogCapture } from '../support/log-capture';
import { startRedis, type TestRedis } from '../support/redis-server';
import { waitFor } from '../../testkit/wait-for';

/** An in-process API on a given Redis and secret, answering through the OpenAPI-checked client. */
interface Api {
  config: Config;
  call: Call;
  api: RunningApi;
}

async function startOn(redis: TestRedis, prefix: string, secret: string): Promise<Api> {
  const config = loadConfig({ ...BASE_ENV, CONNECTOR_SECRET: secret, REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix }, 'dev');
  const api = await startApi(config, createLogger(config.logLevel, 'rotation-test', new LogCapture()));
  const baseUrl = `http://127.0.0.1:${api.port}`;
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, { what: 'the API to be ready' });
  return { config, api, call: (await checkedClient(baseUrl)).call };
}

async function link(api: Api, subject: string): Promise<string> {
  const res = await api.call('POST', '/v1/link', { body: { subject }, headers: { 'x-link-secret': api.config.linkSecret } });
  expect(res.status, res.text).to.equal(201);
  return res.body.token as string;
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
    const oldToken = await link(before_, subject);
    const first = await before_.call('POST', '/v1/jobs', {
      token: oldToken,
      body: { input: { prompt: 'paid once' } },
      headers: { 'idempotency-key': key },
    });
    expect(first.status, first.text).to.equal(202);
    await before_.api.close();
    before_ = undefined;

    // The operator rotates the secret: every old token dies, and the person links again.
    after_ = await startOn(redis, prefix, 'secret-B-0123456789-abcdefghijklmnopqrstuv');
    expect((await after_.call('GET', '/v1/me', { token: oldToken })).status).to.equal(401);
    const token = await link(after_, subject);
    const retry = await after_.call('POST', '/v1/jobs', {
      token,
      body: { input: { prompt: 'paid once' } },
      headers: { 'idempotency-key': key },
    });
    expect(retry.status, retry.text).to.equal(202);
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    expect(retry.body.id).to.equal(first.body.id);

    const other = await after_.call('POST', '/v1/jobs', {
      token,
      body: { input: { prompt: 'something else' } },
      headers: { 'idempotency-key': key },
    });
    expect(other.status, other.text).to.equal(422);
    const me = await after_.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  });
});
