import { expect } from 'chai';
import fc from 'fast-check';
import * as z from 'zod';
import type { Job } from '../../../../../shared/domain/jobs/job';
import { JobViewer } from '../../../../../shared/domain/jobs/job-viewer';
import {
  clip,
  LISTED_ERROR_CHARS,
  LISTED_PROGRESS_CHARS,
  READ_ERROR_CHARS,
  SUMMARY_FIELDS,
  SUMMARY_NAME_CHARS,
  SUMMARY_VALUE_CHARS,
  summarise,
} from '../../../../../shared/domain/jobs/job-views';
import { paidJob } from '../../../../../shared/domain/jobs/processor';

/** A finished job of `operation` with the given input and result. */
function job(operation: string, input: Record<string, unknown>, result: Record<string, unknown> | null = null): Job {
  return {
    id: 'job_x',
    operation,
    status: result ? 'succeeded' : 'failed',
    input,
    cost: 3,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:01.000Z',
    result,
    error: result ? null : { message: 'e'.repeat(2000) },
    attempts: 1,
    progress: { percent: 100, message: 'p'.repeat(200), updated_at: '2026-01-01T00:00:01.000Z' },
    partial: null,
    cancel_requested_at: null,
    refunded_credits: 0,
  };
}

const points = (text: string) => [...text].length;

describe('how a job shows its input and result', () => {
  it('clip keeps a short text, cuts a long one to its length with an ellipsis, counting code points, and blanks control characters', () => {
    expect(clip('short', 10)).to.equal('short');
    expect(clip('x'.repeat(50), 10)).to.equal(`${'x'.repeat(9)}…`);
    expect(clip('😀'.repeat(50), 10)).to.equal(`${'😀'.repeat(9)}…`);
    expect(clip('a\nb\u0000c', 10)).to.equal('a b c');
  });

  it('the default summary keeps the first fields, numbers, booleans and null as they are, and cuts everything else to text', () => {
    expect(summarise({ text: 'x'.repeat(20_000), pages: 3, draft: true, extra: 'no' })).to.deep.equal({
      text: `${'x'.repeat(SUMMARY_VALUE_CHARS - 1)}…`,
      pages: 3,
      draft: true,
    });
    expect(summarise({ list: [1, 2, 3], nested: { a: null }, none: null })).to.deep.equal({
      list: '[1,2,3]',
      nested: '{"a":null}',
      none: null,
    });
    expect(summarise({ ['n'.repeat(SUMMARY_NAME_CHARS + 1)]: 1, ok: 2 })).to.deep.equal({ ok: 2 });
  });

  it('any input summarises within its bounds: at most 3 fields, names of 24 and values of 32 characters', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 40 }), fc.jsonValue()), (input) => {
        const summary = summarise(input);
        expect(Object.keys(summary).length).to.be.at.most(SUMMARY_FIELDS);
        for (const [name, value] of Object.entries(summary)) {
          expect(points(name)).to.be.at.most(SUMMARY_NAME_CHARS);
          if (typeof value === 'string') expect(points(value)).to.be.at.most(SUMMARY_VALUE_CHARS);
          else expect(value === null || ['number', 'boolean'].includes(typeof value)).to.equal(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('without views, a job is read whole (a very long error cut), and listed with its input and result summarised and its messages cut', () => {
    const viewer = new JobViewer();
    const done = job('anything', { text: 'x'.repeat(20_000) }, { translated: 'y'.repeat(20_000), chunks: 20 });
    expect(viewer.read(done)).to.equal(done);
    const listed = viewer.list(done);
    expect(listed.input).to.deep.equal({ text: `${'x'.repeat(SUMMARY_VALUE_CHARS - 1)}…` });
    expect(listed.result).to.deep.equal({ translated: `${'y'.repeat(SUMMARY_VALUE_CHARS - 1)}…`, chunks: 20 });
    expect(points(listed.progress!.message!)).to.equal(LISTED_PROGRESS_CHARS);
    const failed = job('anything', { text: 'x' });
    expect(points(viewer.list(failed).error!.message)).to.equal(LISTED_ERROR_CHARS);
    expect(points(viewer.read(failed).error!.message)).to.equal(READ_ERROR_CHARS);
    expect(viewer.event(done)).to.equal(done);
  });

  it('a job’s declared views replace the defaults where they apply: read, list, and event (which otherwise follows read)', () => {
    const secretive = paidJob({
      operationId: 'secretive',
      input: z.strictObject({ text: z.string() }),
      result: z.strictObject({ words: z.int() }),
      views: {
        read: { input: { schema: z.strictObject({ characters: z.int() }), show: (input) => ({ characters: input.text.length }) } },
        list: { result: { schema: z.strictObject({ enough: z.boolean() }), show: (result) => ({ enough: result.words > 2 }) } },
        event: { input: { schema: z.strictObject({}), show: () => ({}) } },
      },
      processor: () => async (input) => ({ words: input.text.split(' ').length }),
    });
    const viewer = new JobViewer([secretive]);
    const done = job('secretive', { text: 'one two three' }, { words: 3 });
    expect(viewer.read(done)).to.deep.include({ input: { characters: 13 }, result: { words: 3 } });
    expect(viewer.list(done)).to.deep.include({ input: { text: 'one two three' }, result: { enough: true } });
    expect(viewer.event(done)).to.deep.include({ input: {}, result: { words: 3 } });
    // Another operation's job is shown by the defaults.
    expect(viewer.read(job('other', { text: 'x' }, { a: 1 })).input).to.deep.equal({ text: 'x' });
  });
});
