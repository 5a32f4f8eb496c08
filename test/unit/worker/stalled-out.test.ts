import { expect } from 'chai';
import { CANCEL_REQUESTED_FIELD, CANCELED_FIELD } from '../../../shared/adapters/redis/bullmq-job-record';
import { type JobEvents, JobLifecycle } from '../../../shared/domain/jobs/job-lifecycle';
import type { JobMoney } from '../../../shared/domain/jobs/job-settlement';
import { endStalledOut } from '../../../worker/stalled-out';
import { fakeBullJob, fakeHashClient } from '../../support/fake-bull-job';

const KEY = 'bull:jobs:job_1';
const REPORT = { percent: 30, message: null, updated_at: '2026-01-01T00:00:20.000Z' };

/** A lifecycle whose settlement gives back `released` and whose events are written down. */
function lifecycle(released: number) {
  const steps: string[] = [];
  const money: JobMoney = {
    settle: (_job, settlement) => {
      steps.push(`settle ${settlement.reason} ${settlement.release}`);
      return { released, made: true };
    },
  };
  const events: JobEvents = { enabled: true, record: (outcome) => void steps.push(`event ${outcome}`) };
  return { subject: new JobLifecycle({ money, events }), steps };
}

describe('endStalledOut (a job BullMQ failed by itself for stalling, before 0.7.0)', () => {
  it('no cancel asked: settled as failed (all given back: it counts as not started), its event recorded, the refund shown', async () => {
    const redis = fakeHashClient({ [KEY]: {} });
    const { subject, steps } = lifecycle(5);
    await endStalledOut(fakeBullJob({ progress: { reported: REPORT } }).job, redis.client, subject);
    expect(steps).to.deep.equal(['settle failed 5', 'event failed']);
    expect(redis.calls).to.deep.equal([`hset ${KEY} progress`]);
    expect(JSON.parse(redis.hashes[KEY].progress)).to.deep.equal({ reported: REPORT, refunded: 5 });
  });

  it('a cancel asked meanwhile: settled as canceled, shown canceled and counted in the canceled set', async () => {
    const redis = fakeHashClient({ [KEY]: { [CANCEL_REQUESTED_FIELD]: '1' } });
    const { subject, steps } = lifecycle(5);
    await endStalledOut(fakeBullJob().job, redis.client, subject);
    expect(steps).to.deep.equal(['settle canceled 5', 'event canceled']);
    expect(redis.calls).to.deep.equal([`hset ${KEY} progress,${CANCELED_FIELD}`, 'zadd bull:jobs:canceled job_1']);
    expect(JSON.parse(redis.hashes[KEY].progress)).to.deep.equal({ canceled: true, refunded: 5 });
  });

  it('a failure whose operation keeps the charge (nothing given back): the progress is written without a refund', async () => {
    const redis = fakeHashClient({ [KEY]: {} });
    await endStalledOut(fakeBullJob({ progress: { error: 'Busy.' } }).job, redis.client, lifecycle(0).subject);
    expect(JSON.parse(redis.hashes[KEY].progress)).to.deep.equal({ error: 'Busy.' });
  });
});
