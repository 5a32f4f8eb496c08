import { expect } from 'chai';
import Redis from 'ioredis';
import { submitPrompt } from '../support/job-submission';
import { type ApiUnderTest, redisEnv, startApiProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('REDIS_MIN_REPLICAS=1: a paid job is acknowledged only once a replica holds it', () => {
  let primary: TestRedis;
  let replica: TestRedis;
  let replicaClient: Redis;
  let api: ApiUnderTest;
  let token: string;
  before(async () => {
    primary = await startRedis();
    replica = await startRedis();
    replicaClient = new Redis(replica.url);
    // Long enough for a loaded machine's replica to acknowledge (WAIT asks it at once, so an idle one answers in
    // a millisecond): 200 ms answered 503 in two parallel runs of the whole suite.
    api = await startApiProcess(redisEnv(primary.url, 'wait:', { REDIS_MIN_REPLICAS: '1', REDIS_WAIT_MS: '2000' }));
    token = (await api.link('waiting@example.com')).token;
  });
  after(async () => {
    await api?.stop();
    replicaClient?.disconnect();
    await replica?.stop();
    await primary?.stop();
  });

  it('without a replica the job is answered 503 with Retry-After, and so is its retry', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await submitPrompt(api, token, 'keep me', { key: 'unreplicated' });
      expect(res.status, res.text).to.equal(503);
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    }
  });

  it('once a replica has synced, the retry answers 202 with the same job, replayed and charged once', async () => {
    await replicaClient.replicaof('127.0.0.1', primary.port);
    await waitFor(async () => /master_link_status:up/.test(await replicaClient.info('replication')), { what: 'the replica to sync' });
    const retry = await submitPrompt(api, token, 'keep me', { key: 'unreplicated' });
    expect(retry.status, retry.text).to.equal(202);
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    const again = await submitPrompt(api, token, 'keep me', { key: 'unreplicated' });
    expect(again.body.id).to.equal(retry.body.id);
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    // The replica holds the job the 202 named.
    expect(await replicaClient.exists(`wait:bull:jobs:${retry.body.id}`)).to.equal(1);
  });

  it('with the replica in sync a new job is answered 202 at once, not replayed', async () => {
    const res = await submitPrompt(api, token, 'keep me', { key: 'fresh' });
    expect(res.status, res.text).to.equal(202);
    expect(res.headers.get('idempotent-replayed')).to.equal(null);
  });
});
