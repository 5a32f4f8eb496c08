import { expect } from 'chai';
import { inAttemptSpan } from '../../../worker/attempt-span';

const JOB = { id: 'job_1', operation: 'op', attempt: 1 };

describe('inAttemptSpan (tracing off: no span is recorded)', () => {
  it('answers the attempt’s outcome unchanged, a success or not', async () => {
    expect(await inAttemptSpan(JOB, async () => ({ kind: 'succeeded', result: { ok: true } }))).to.deep.equal({
      kind: 'succeeded',
      result: { ok: true },
    });
    expect(await inAttemptSpan(JOB, async () => ({ kind: 'failed', message: 'No.' }))).to.deep.equal({ kind: 'failed', message: 'No.' });
  });

  it('hands the attempt a progress recorder it may call any number of times', async () => {
    const outcome = await inAttemptSpan(JOB, async (progressEvent) => {
      progressEvent(10);
      progressEvent(90);
      return { kind: 'retry', message: 'Busy.' };
    });
    expect(outcome).to.deep.equal({ kind: 'retry', message: 'Busy.' });
  });

  it('an attempt that throws: the error passes through', async () => {
    const failure = new Error('broken');
    const thrown = await inAttemptSpan(JOB, () => Promise.reject(failure)).catch((error: unknown) => error);
    expect(thrown).to.equal(failure);
  });
});
