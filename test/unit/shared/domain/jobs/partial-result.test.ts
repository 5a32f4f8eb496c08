import { expect } from 'chai';
import * as z from 'zod';
import { checkedPartial, MAX_PARTIAL_BYTES, PartialResultError, splitReport } from '../../../../../shared/domain/jobs/partial-result';
import { buildProcessors, paidJob } from '../../../../../shared/domain/jobs/processor';
import { createProgressReporter } from '../../../../../shared/domain/jobs/progress-reporter';

const SO_FAR = z.strictObject({ done: z.int().min(0), text: z.string().max(20_000) });

describe('checking a partial result a processor publishes', () => {
  it('a partial that fits its schema and the bound is answered as a copy: changing the original later changes nothing stored', () => {
    const value = { done: 1, text: 'abc' };
    const stored = checkedPartial('op', SO_FAR, value);
    value.done = 2;
    expect(stored).to.deep.equal({ done: 1, text: 'abc' });
  });

  it('a partial outside its schema is refused with a PartialResultError naming the operation, the rule and the field', () => {
    expect(() => checkedPartial('translateDocument', SO_FAR, { done: -1, text: '' }))
      .to.throw(PartialResultError)
      .with.property('message')
      .that.matches(/^translateDocument: a partial result must fit its declared schema \(.+ at done\)\.$/);
  });

  it('a partial over 16 KiB of JSON is refused naming the bound and its size; one of exactly 16 KiB is kept', () => {
    const overhead = JSON.stringify({ done: 0, text: '' }).length;
    const fits = { done: 0, text: 'x'.repeat(MAX_PARTIAL_BYTES - overhead) };
    expect(checkedPartial('op', SO_FAR, fits)).to.deep.equal(fits);
    // Counted in UTF-8 bytes: one more character, or an emoji in place of a letter, passes the bound.
    expect(() => checkedPartial('op', SO_FAR, { ...fits, text: `${fits.text}x` })).to.throw(
      PartialResultError,
      `op: a partial result may take at most ${MAX_PARTIAL_BYTES} bytes as JSON; this one takes ${MAX_PARTIAL_BYTES + 1}.`,
    );
    expect(() => checkedPartial('op', SO_FAR, { ...fits, text: `😀${fits.text.slice(1)}` })).to.throw(
      PartialResultError,
      /this one takes 16387/,
    );
  });

  it('a job that declares no partial schema cannot publish one, and one that is not an object is refused', () => {
    expect(() => checkedPartial('createJob', undefined, { a: 1 })).to.throw(PartialResultError, 'createJob declares no partial schema');
    expect(() => checkedPartial('op', z.any(), ['a'])).to.throw(PartialResultError, 'must be a JSON object');
  });

  it('a stored report splits into the progress a job shows and its partial result (null when none)', () => {
    const report = { percent: 40, message: 'm', updated_at: 't', partial: { done: 2 } };
    expect(splitReport(report)).to.deep.equal({ progress: { percent: 40, message: 'm', updated_at: 't' }, partial: { done: 2 } });
    expect(splitReport({ percent: 1, message: null, updated_at: 't' }).partial).to.equal(null);
    expect(splitReport(null)).to.deep.equal({ progress: null, partial: null });
  });
});

describe('a processor publishing partial results', () => {
  const job = paidJob({
    operationId: 'chunks',
    input: z.strictObject({ n: z.int() }),
    partial: SO_FAR,
    processor:
      () =>
      async (input, { partial }) => {
        partial({ done: input.n, text: 'so far' });
        return { n: input.n };
      },
  });

  it('its partial passes the job’s checks on the way to the store; a bad one throws inside the processor', async () => {
    const published: unknown[] = [];
    const context = {
      jobId: 'j',
      attempt: 1,
      signal: new AbortController().signal,
      progress: () => {},
      partial: (v: object) => published.push(v),
      emit: async () => {},
    };
    const processor = buildProcessors([job]).get('chunks')!;
    expect(await processor({ n: 3 }, context)).to.deep.equal({ n: 3 });
    expect(published).to.deep.equal([{ done: 3, text: 'so far' }]);
    const refused = await processor({ n: -1 }, context).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(PartialResultError);
    expect(published).to.have.length(1);
  });

  it('the reporter writes the latest partial with the latest progress: a report keeps the partial, a partial keeps the progress', async () => {
    const written: unknown[] = [];
    const reporter = createProgressReporter(async (report) => void written.push(report), { intervalMs: 0 });
    reporter.report(10, 'ten');
    await reporter.settle();
    reporter.publish({ done: 1 });
    await reporter.settle();
    reporter.report(20);
    await reporter.settle();
    expect(written.map((r) => ({ ...(r as object), updated_at: undefined }))).to.deep.equal([
      { percent: 10, message: 'ten', updated_at: undefined },
      { percent: 10, message: 'ten', updated_at: undefined, partial: { done: 1 } },
      { percent: 20, message: null, updated_at: undefined, partial: { done: 1 } },
    ]);
  });
});
