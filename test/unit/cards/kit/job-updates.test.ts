import { expect } from 'chai';
import { isJob, MAX_POLL_MS, newerJob, nextPollMs, readToolResult } from '../../../../cards/kit/job-updates';
import { JOB_POLL_SECONDS } from '../../../../shared/domain/jobs/job';
import { cardJob } from '../../../support/card-job';

const job = cardJob;

describe('the card kit’s refresh of a job', () => {
  it('a job that is not final is refreshed at its poll hint (Retry-After, default JOB_POLL_SECONDS); a final one never', () => {
    expect(nextPollMs(job())).to.equal(JOB_POLL_SECONDS * 1000);
    expect(nextPollMs(job({ status: 'queued' }), 0, 5)).to.equal(5000);
    for (const status of ['succeeded', 'failed', 'canceled'] as const) expect(nextPollMs(job({ status }))).to.equal(null);
  });

  it('each failed refresh in a row doubles the wait, up to MAX_POLL_MS; a nonsense hint falls back to the default', () => {
    expect([0, 1, 2].map((failures) => nextPollMs(job(), failures))).to.deep.equal([2000, 4000, 8000]);
    expect(nextPollMs(job(), 50)).to.equal(MAX_POLL_MS);
    expect(nextPollMs(job(), 0, Number.NaN)).to.equal(JOB_POLL_SECONDS * 1000);
    expect(nextPollMs(job(), 0, -1)).to.equal(JOB_POLL_SECONDS * 1000);
  });

  it('an answer that crossed a later one is dropped: a final job never goes back to running, a cancellation is never forgotten', () => {
    const running = job();
    const canceled = job({ status: 'canceled', refunded_credits: 3, cancel_requested_at: '2026-11-25T10:00:03.000Z' });
    const stopping = job({ cancel_requested_at: '2026-11-25T10:00:03.000Z' });
    expect(newerJob(canceled, running)).to.equal(canceled);
    expect(newerJob(stopping, running)).to.equal(stopping);
    expect(newerJob(running, job({ status: 'queued', attempts: 0, started_at: null, progress: null }))).to.equal(running);
    expect(newerJob(running, canceled)).to.equal(canceled);
    expect(newerJob(undefined, running)).to.equal(running);
    expect(newerJob(running, job({ id: 'job_other' }))).to.equal(running);
  });

  it('a running job read queued again with as many attempts started (handed back after a crash, or waiting for a retry) is shown queued', () => {
    const handedBack = job({ status: 'queued', attempts: 1, started_at: null, progress: null });
    expect(newerJob(job(), handedBack)).to.equal(handedBack);
  });
});

describe('the card kit reading a tool result', () => {
  it('takes the job from structured content, or from the JSON text when there is none', () => {
    const shown = job();
    expect(readToolResult({ content: [{ type: 'text', text: JSON.stringify(shown) }], structuredContent: shown as never })).to.deep.equal({
      job: shown,
    });
    expect(readToolResult({ content: [{ type: 'text', text: JSON.stringify(shown) }] })).to.deep.equal({ job: shown });
  });

  it('an error result becomes its message; a result that is no job, or no JSON, is not understood', () => {
    expect(readToolResult({ content: [{ type: 'text', text: 'This job is already finished.' }], isError: true })).to.deep.equal({
      message: 'This job is already finished.',
    });
    expect(readToolResult({ content: [{ type: 'text', text: '{"items":[]}' }], structuredContent: { items: [] } })).to.equal(undefined);
    expect(readToolResult({ content: [{ type: 'text', text: 'not json' }] })).to.equal(undefined);
    expect(isJob({ ...job(), status: 'paused' })).to.equal(false);
    expect(isJob(null)).to.equal(false);
  });
});
