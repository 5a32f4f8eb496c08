import { expect } from 'chai';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { placeholderProcessor } from '../../shared/domain/processors/placeholder-processor';

const context = { jobId: 'job_x', attempt: 1, signal: new AbortController().signal };
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
    expect(await run({}, context)).to.deep.equal({ summary: '', characters: 0, words: 0, digest: empty });
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
          expect(await run({ prompt }, context)).to.deep.equal(expected(prompt));
        },
      ),
    );
  });
});
