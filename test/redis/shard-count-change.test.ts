import { expect } from 'chai';
import Redis from 'ioredis';
import { pollJob } from '../support/job-polling';
import { acceptedJob, submitPrompt } from '../support/job-submission';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';

const PREFIX = 'shards:';

describe('changing JOB_QUEUE_SHARDS on a running deployment loses and duplicates nothing', () => {
  let redis: TestRedis;
  let raw: Redis;
  let one: ApiUnderTest;
  let three: ApiUnderTest;
  let worker: ProcessUnderTest | undefined;
  let token: string;
  const ids = new Map<string, string>();

  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
    one = await startApiProcess(redisEnv(redis.url, PREFIX, { JOB_QUEUE_SHARDS: '1', PLACEHOLDER_JOB_MS: '5' }));
    three = await startApiProcess(redisEnv(redis.url, PREFIX, { JOB_QUEUE_SHARDS: '3', PLACEHOLDER_JOB_MS: '5' }));
    token = (await one.link('shards@example.com')).token;
  });
  after(async () => {
    await Promise.all([one?.stop(), three?.stop(), worker?.stop()]);
    raw?.disconnect();
    await redis?.stop();
  });

  it('jobs accepted under 1 shard and under 3 are each replayed through the other count as the same job, charged once', async () => {
    for (let i = 0; i < 12; i++)
      ids.set(`before-${i}`, (await acceptedJob(one, token, { input: { prompt: `prompt of before-${i}` }, key: `before-${i}` })).id);
    for (let i = 0; i < 12; i++)
      ids.set(`after-${i}`, (await acceptedJob(three, token, { input: { prompt: `prompt of after-${i}` }, key: `after-${i}` })).id);
    for (const [key, id] of ids) {
      const replay = await submitPrompt(key.startsWith('before') ? three : one, token, `prompt of ${key}`, { key });
      expect(replay.status, replay.text).to.equal(202);
      expect(replay.body.id).to.equal(id);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    }
    const me = await one.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 24, credits_spent: 24, credits_refunded: 0 });
    // The 3-shard API spread its jobs: more than one queue holds jobs, and no id is on two of them.
    const hashes = (await raw.keys(`${PREFIX}bull:*:job_*`)).filter((key) => !/:(lock|logs)$/.test(key));
    const queues = new Set(hashes.map((key) => key.split(':')[2]));
    expect(queues.size).to.be.greaterThan(1);
    expect(hashes).to.have.length(24);
    expect(new Set(hashes.map((key) => key.split(':').pop())).size).to.equal(24);
  });

  it('every job reads through either API, whichever shard count put it where it is', async () => {
    for (const id of ids.values()) {
      for (const api of [one, three]) expect((await api.call('GET', `/v1/jobs/${id}`, { token })).status).to.equal(200);
    }
  });

  it('a worker configured with 1 shard still drains the shards only the 3-shard count used: every job succeeds once', async () => {
    worker = await startWorkerProcess(redisEnv(redis.url, PREFIX, { JOB_QUEUE_SHARDS: '1', PLACEHOLDER_JOB_MS: '5' }));
    for (const id of ids.values()) {
      const job = await pollJob(three, token, id, (found) => found.status === 'succeeded');
      expect(job.attempts).to.equal(1);
    }
    expect(await raw.smembers(`${PREFIX}job-shards`)).to.have.members(['1', '3']);
  });
});
