import { expect } from 'chai';
import {
  INPUT_SUMMARY_LENGTH,
  jobCardView,
  keptText,
  RESULT_FIELD_LIMIT,
  resultFields,
  summariseInput,
} from '../../../../cards/job-card/job-card-view';
import type { Job } from '../../../../shared/domain/jobs/job';
import { cardJob } from '../../../support/card-job';

const UTC = { locale: 'en-GB', timeZone: 'UTC' };

const job = cardJob;

describe('the job card view', () => {
  it('a running job shows its status, progress and message, cost, no refund, no finish time, and offers Cancel', () => {
    const view = jobCardView(job(), UTC);
    expect(view).to.include({
      statusLabel: 'Running',
      tone: 'working',
      final: false,
      percent: 40,
      progressMessage: 'Counting',
      costText: '3 credits',
      refundText: null,
      finishedText: null,
      errorText: null,
      canCancel: true,
      operation: 'countWords',
      inputSummary: 'text: "hello world"',
    });
    expect(view.createdText).to.equal('25 Nov 2026, 10:00:00');
    expect(view.resultFields).to.deep.equal([]);
  });

  it('a queued job before any report shows 0 % and that it waits; a running one before any report has no percent (indeterminate)', () => {
    expect(jobCardView(job({ status: 'queued', progress: null }))).to.include({
      percent: 0,
      progressMessage: 'Waiting to start',
      tone: 'waiting',
    });
    expect(jobCardView(job({ progress: null }))).to.include({ percent: null, progressMessage: '' });
  });

  it('a running job with a partial result lists its fields "so far"; once it has ended the result replaces them (none listed)', () => {
    const partial = { chunks_done: 2, chunks: 5, tail: 'x'.repeat(300) };
    expect(jobCardView(job({ partial })).partialFields).to.deep.equal([
      { name: 'chunks_done', value: '2' },
      { name: 'chunks', value: '5' },
      { name: 'tail', value: `${'x'.repeat(199)}…` },
    ]);
    expect(jobCardView(job()).partialFields, 'none published').to.deep.equal([]);
    const ended = jobCardView(job({ status: 'succeeded', partial, result: { done: true }, finished_at: '2026-11-25T10:01:00.000Z' }));
    expect(ended.partialFields).to.deep.equal([]);
    expect(ended.resultFields).to.deep.equal([{ name: 'done', value: 'true' }]);
  });

  it('a running job asked to stop reads "Stopping…" and no longer offers Cancel', () => {
    const view = jobCardView(job({ cancel_requested_at: '2026-11-25T10:00:03.000Z' }));
    expect(view).to.include({ statusLabel: 'Stopping…', canCancel: false, final: false });
  });

  it('a canceled job is final, shows its refund and finish time, and offers no Cancel', () => {
    const view = jobCardView(
      job({
        status: 'canceled',
        finished_at: '2026-11-25T10:01:00.000Z',
        cancel_requested_at: '2026-11-25T10:00:59.000Z',
        refunded_credits: 3,
      }),
      UTC,
    );
    expect(view).to.include({
      statusLabel: 'Canceled',
      tone: 'muted',
      final: true,
      canCancel: false,
      refundText: '3 credits refunded',
      progressMessage: 'Stopped before it finished',
    });
    expect(jobCardView(job({ status: 'canceled', started_at: null, progress: null })).progressMessage).to.equal(
      'Canceled before it started',
    );
    expect(view.finishedText).to.equal('25 Nov 2026, 10:01:00');
  });

  it('a cancel after the start says what it kept and gave back, at the percent the job showed', () => {
    const canceled = (overrides: Partial<Job>) =>
      jobCardView(
        job({ status: 'canceled', finished_at: '2026-11-25T10:01:00.000Z', cancel_requested_at: '2026-11-25T10:00:59.000Z', ...overrides }),
      );
    expect(canceled({ refunded_credits: 1 }), 'progress: 2 of 3 kept at 40 %').to.include({
      keptText: 'Canceled at 40 %: 2 credits kept, 1 refunded',
      refundText: '1 credit refunded',
    });
    expect(canceled({ refunded_credits: 3 }).keptText, 'cancelCharge none').to.equal('Canceled at 40 %: nothing kept, 3 refunded');
    expect(canceled({ refunded_credits: 0 }), 'cancelCharge full').to.include({
      keptText: 'Canceled at 40 %: 3 credits kept, nothing refunded',
      refundText: null,
    });
    expect(canceled({ cost: 1, refunded_credits: 0, progress: null }).keptText, 'no report').to.equal(
      'Canceled while running: 1 credit kept, nothing refunded',
    );
  });

  it('no kept line for a cancel before the attempt started (everything back, said by the refund row), a free job, or a job not canceled', () => {
    const queuedCancel = job({ status: 'canceled', started_at: null, progress: null, refunded_credits: 3 });
    expect(jobCardView(queuedCancel)).to.include({ keptText: null, refundText: '3 credits refunded' });
    expect(keptText(job({ status: 'canceled', cost: 0 }))).to.equal(null);
    expect(keptText(job({ status: 'failed', refunded_credits: 3 }))).to.equal(null);
    expect(keptText(job())).to.equal(null);
  });

  it('a succeeded job shows 100 % and its result as fields; a failed one its safe error and no result', () => {
    const done = jobCardView(
      job({ status: 'succeeded', finished_at: '2026-11-25T10:01:00.000Z', result: { words: 2, top: { hello: 1 } } }),
    );
    expect(done).to.include({ percent: 100, tone: 'success', errorText: null });
    expect(done.resultFields).to.deep.equal([
      { name: 'words', value: '2' },
      { name: 'top', value: '{"hello":1}' },
    ]);
    const failed = jobCardView(
      job({ status: 'failed', finished_at: '2026-11-25T10:01:00.000Z', error: { message: 'The text has no words.' } }),
    );
    expect(failed).to.include({ tone: 'danger', errorText: 'The text has no words.', final: true });
    expect(failed.resultFields).to.deep.equal([]);
  });

  it('a long input is summarised on one line and cut with an ellipsis; an empty one says so', () => {
    const summary = summariseInput({ text: 'x'.repeat(500), lang: 'en', options: { deep: true } });
    expect([...summary]).to.have.length(INPUT_SUMMARY_LENGTH);
    expect(summary.startsWith('text: "xxx')).to.equal(true);
    expect(summary.endsWith('…')).to.equal(true);
    expect(summariseInput({ n: 2, deep: { a: [1] } })).to.equal('n: 2, deep: {"a":[1]}');
    expect(summariseInput({})).to.equal('(no input)');
  });

  it('a result with many fields lists the first ones and says how many more; long values are cut', () => {
    const many = Object.fromEntries(Array.from({ length: RESULT_FIELD_LIMIT + 3 }, (_, index) => [`f${index}`, 'v'.repeat(300)]));
    const fields = resultFields(many);
    expect(fields).to.have.length(RESULT_FIELD_LIMIT + 1);
    expect(fields.at(-1)).to.deep.equal({ name: '…', value: '3 more fields' });
    expect(fields[0].value.endsWith('…')).to.equal(true);
    expect(resultFields(null)).to.deep.equal([]);
  });

  it('a job handed back (queued again after it ran) reads queued and waiting, with no kept line', () => {
    const handedBack = job({ status: 'queued', attempts: 1, started_at: null, progress: null });
    expect(jobCardView(handedBack)).to.include({ percent: 0, progressMessage: 'Waiting to start', keptText: null });
  });
});
