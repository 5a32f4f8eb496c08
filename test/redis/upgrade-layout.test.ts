import { expect } from 'chai';
import Redis from 'ioredis';
import { BASE_ENV } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { LEGACY_RESULT, type LegacyData, writeLegacyLayout } from './support/legacy-layout';

const PREFIX = 'upgrade:';

describe('upgrade in place: data written by the release before topologies still answers on one node', () => {
  let redis: TestRedis;
  let raw: Redis;
  let legacy: LegacyData;
  let api: ApiUnderTest;
  let worker: ProcessUnderTest;
  let token: string;

  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
    legacy = await writeLegacyLayout(raw, PREFIX, BASE_ENV.CONNECTOR_SECRET);
    // The upgraded deployment also raises the shard count: records without a shard still name queue `jobs`.
    const env = redisEnv(redis.url, PREFIX, { JOB_QUEUE_SHARDS: '3' });
    api = await startApiProcess(env);
    worker = await startWorkerProcess(env);
    token = legacy.token(BASE_ENV.PUBLIC_URL);
  });
  after(async () => {
    await api?.stop();
    await worker?.stop();
    raw?.disconnect();
    await redis?.stop();
  });

  // First: the calls below would record a use.
  it("the dashboard lists the connection made before the upgrade (created when issued, never used) and reads the day's spend from its old key", async () => {
    const headers = { 'x-link-secret': BASE_ENV.LINK_SECRET };
    const listed = await api.call('GET', `/v1/link/connections?subject=${encodeURIComponent(legacy.subject)}`, { headers });
    expect(listed.status, listed.text).to.equal(200);
    const issuedAt = Number(await raw.hget(`${PREFIX}conn:${legacy.connectionId}`, 'issued_at'));
    expect(listed.body.items).to.deep.equal([
      {
        connection_id: legacy.connectionId,
        subject: legacy.subject,
        kind: 'link',
        client: null,
        created_at: new Date(issuedAt * 1000).toISOString(),
        last_used_at: null,
        expires_at: new Date((issuedAt + 30 * 86_400) * 1000).toISOString(),
        revoked: false,
      },
    ]);
    const usage = await api.call('GET', `/v1/link/usage?subject=${encodeURIComponent(legacy.subject)}&days=3`, { headers });
    expect(usage.status, usage.text).to.equal(200);
    expect(usage.body).to.deep.include({ credits_spent: 2, jobs_charged: 2 });
    expect(usage.body.days[0]).to.deep.equal({ date: new Date().toISOString().slice(0, 10), credits: 2, charged: 2, refunded: 0 });
  });

  it('the connection made before the upgrade still authenticates, with its usage', async () => {
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body).to.deep.include({ subject: legacy.subject, connection_id: legacy.connectionId });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 2, credits_spent: 2, credits_refunded: 0 });
  });

  it('the thing made before the upgrade is listed', async () => {
    const things = await api.call('GET', '/v1/things', { token });
    expect(things.status).to.equal(200);
    expect(things.body.items.map((thing: { id: string }) => thing.id)).to.deep.equal([legacy.thingId]);
  });

  it('the finished job reads as succeeded and the queued one is run by the upgraded worker, both listed', async () => {
    const [finished, queued] = legacy.jobs;
    const done = await api.call('GET', `/v1/jobs/${finished.id}`, { token });
    expect(done.status).to.equal(200);
    expect(done.body).to.deep.include({ status: 'succeeded', result: LEGACY_RESULT });
    const ran = await pollJob(api, token, queued.id, (job) => job.status === 'succeeded');
    expect(ran.attempts).to.equal(1);
    const list = await api.call('GET', '/v1/jobs', { token });
    expect(list.body.items.map((job: { id: string }) => job.id)).to.have.members([finished.id, queued.id]);
  });

  it('retrying either idempotency key returns the same job, replayed, without a second job or charge', async () => {
    for (const job of legacy.jobs) {
      const retry = await api.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': job.key }, body: { input: job.input } });
      expect(retry.status, retry.text).to.equal(202);
      expect(retry.body.id).to.equal(job.id);
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    }
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 2, credits_spent: 2, credits_refunded: 0 });
    // Each job exists once, on the queue it was written to.
    const jobHashes = (await raw.keys(`${PREFIX}bull:*:job_*`)).filter((key) => !/:(lock|logs)$/.test(key));
    expect(jobHashes.sort()).to.deep.equal(legacy.jobs.map((job) => `${PREFIX}bull:jobs:${job.id}`).sort());
  });

  it('revoking the subject through the dashboard ends the connection made before the upgrade', async () => {
    const revoked = await api.call('POST', '/v1/link/revoke', {
      headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      body: { subject: legacy.subject },
    });
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.deep.equal({ revoked: 1 });
    expect((await api.call('GET', '/v1/me', { token })).status).to.equal(401);
  });
});
