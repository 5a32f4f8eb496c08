import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { RedisKeys } from '../../../../../shared/adapters/redis/redis-keys';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);

describe('RedisKeys', () => {
  it('every key starts with the prefix; BullMQ gets <prefix>bull', () => {
    const keys = new RedisKeys('cx:');
    expect(keys.bullPrefix).to.equal('cx:bull');
    expect(keys.connection('conn-1')).to.equal('cx:conn:conn-1');
    expect(keys.jobShardCounts).to.equal('cx:job-shards');
  });

  it('a subject never appears in a key name: only its 128-bit digest does', () => {
    const keys = new RedisKeys('cx:');
    const subject = 'person@example.com';
    for (const key of [keys.subjectConnections(subject), keys.subjectJobs(subject), keys.subjectCredits(subject)]) {
      expect(key).to.not.contain(subject);
      expect(key).to.contain(digest(subject));
    }
    expect(keys.subjectJobs(subject)).to.not.equal(keys.subjectJobs('other@example.com'));
  });

  it('job shard queue names: jobs for shard 0, then jobs-1, jobs-2; each its own hash tag on a cluster', () => {
    expect([0, 1, 2].map((shard) => new RedisKeys('cx:').jobQueueName(shard))).to.deep.equal(['jobs', 'jobs-1', 'jobs-2']);
    expect([0, 1].map((shard) => new RedisKeys('cx:', true).jobQueueName(shard))).to.deep.equal(['{jobs}', '{jobs-1}']);
    expect(new RedisKeys('cx:', true).webhookQueueName).to.equal('{webhooks}');
  });

  it("on a cluster, a subject's keys share one hash tag (its digest), so a script can read them together", () => {
    const keys = new RedisKeys('cx:', true);
    const tag = `{${digest('user-1')}}`;
    expect(keys.subjectJobs('user-1')).to.contain(tag);
    expect(keys.subjectCredits('user-1')).to.contain(tag);
    expect(keys.idempotency('user-1', 'job-9')).to.equal(`cx:idem:${tag}:job-9`);
    expect(new RedisKeys('cx:').idempotency('user-1', 'job-9')).to.equal('cx:idem:job-9');
  });

  it('forConnection: hash tags only for a cluster topology', () => {
    const of = (mode: string) => RedisKeys.forConnection('p:', { topology: { mode } } as never).clustered;
    expect([of('cluster'), of('single')]).to.deep.equal([true, false]);
  });

  it('rate windows and OAuth records: keyed by digests of their keys, never the keys themselves', () => {
    const keys = new RedisKeys('cx:');
    expect(keys.rateWindow('ip:192.0.2.7')).to.equal(`cx:rl:${digest('ip:192.0.2.7')}`);
    expect(keys.oauth('code', 'the-code')).to.equal(`cx:oauth:code:${digest('the-code')}`);
  });
});
