import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { PLACEHOLDER_FAILURE, placeholderProcessor } from '../../../../../shared/domain/processors/placeholder-processor';

const context = {
  jobId: 'job_x',
  attempt: 1,
  signal: new AbortController().signal,
  progress: () => {},
  partial: () => {},
  emit: async () => {},
};
const run = placeholderProcessor(0);

/** The published result format, written out independently of the processor. */
function expected(prompt: string): Record<string, unknown> {
  const trimmed = prompt.trim();
  return {
    summary: prompt.length > 80 ? `${prompt.slice(0, 77)}...` : prompt,
    characters: prompt.length,
    words: trimmed === '' ? 0 : trimmed.split(/\s+/).length,
    digest: createHash('sha256').update(prompt, 'utf8').digest('hex').slice(0, 16),
  };
}

describe('the placeholder processor', () => {
  it('a known prompt gives the documented four fields, the digest being the first 16 hex digits of its SHA-256', async () => {
    // sha256('count my words') = 8cbfed6d2cf59952…, as `sha256sum` prints it.
    expect(await run({ prompt: 'count my words' }, context)).to.deep.equal({
      summary: 'count my words',
      characters: 14,
      words: 3,
      digest: '8cbfed6d2cf59952',
    });
  });

  it('a prompt over 80 characters is summarised as its first 77 and an ellipsis; its length and digest cover all of it', async () => {
    const prompt = 'word '.repeat(30);
    const result = await run({ prompt }, context);
    expect(result.summary).to.equal(`${prompt.slice(0, 77)}...`);
    expect(result.characters).to.equal(150);
    expect(result.words).to.equal(30);
  });

  it('an empty, blank or missing prompt has zero words and the digest of the empty string', async () => {
    const empty = createHash('sha256').update('').digest('hex').slice(0, 16);
    expect(await run({ prompt: '' }, context)).to.deep.equal({ summary: '', characters: 0, words: 0, digest: empty });
    expect(await run({} as { prompt: string }, context)).to.deep.equal({ summary: '', characters: 0, words: 0, digest: empty });
    expect((await run({ prompt: ' \t\n ' }, context)).words).to.equal(0);
  });

  it('any prompt, Unicode and whitespace of every kind included, gives the published format', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.string({ unit: fc.constantFrom(' ', '\u00a0', '\u2003', '\t', 'a', 'é', '😀') }),
        ),
        async (prompt) => {
          fc.pre(!prompt.startsWith('!fail'));
          expect(await run({ prompt }, context)).to.deep.equal(expected(prompt));
        },
      ),
    );
  });

  it('with simulated time, progress is reported from 0 to 100 in ascending steps of 10, each with a message', async () => {
    const reports: Array<[number, string | undefined]> = [];
    await placeholderProcessor(20)({ prompt: 'p' }, { ...context, progress: (percent, message) => reports.push([percent, message]) });
    expect(reports.map(([percent]) => percent)).to.deep.equal([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(reports.every(([, message]) => typeof message === 'string' && message.length > 0)).to.equal(true);
  });

  it('when its signal fires mid-way, the processor stops with the signal reason and reports no more progress', async () => {
    const controller = new AbortController();
    const reports: number[] = [];
    const reason = new Error('stop');
    const running = placeholderProcessor(60_000)(
      { prompt: 'p' },
      {
        ...context,
        signal: controller.signal,
        progress: (percent) => {
          reports.push(percent);
          if (percent === 0) controller.abort(reason);
        },
      },
    );
    const error = await running.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error, 'the rejection').to.be.instanceOf(Error);
    expect(reports).to.deep.equal([0]);
  });

  it('a prompt starting with !fail fails at once with a non-retryable JobError and a safe message', async () => {
    const error = await placeholderProcessor(60_000)({ prompt: '!fail please' }, context).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(JobError);
    expect((error as JobError).retryable).to.equal(false);
    expect((error as JobError).message).to.equal(PLACEHOLDER_FAILURE);
  });
});
