import { expect } from 'chai';
import { SubjectSequence } from '../../../../../shared/adapters/memory/subject-sequence';

/** A sequence with a1, b1, a2, a3 added in that order (global seqs 1 to 4). */
function filled(): SubjectSequence<string> {
  const sequence = new SubjectSequence<string>();
  for (const [subject, value] of [
    ['a', 'a1'],
    ['b', 'b1'],
    ['a', 'a2'],
    ['a', 'a3'],
  ])
    sequence.add(subject, value);
  return sequence;
}

describe('SubjectSequence', () => {
  it('a page: one subject only, newest first, with the global sequence numbers', () => {
    expect(filled().page('a', { limit: 10 })).to.deep.equal([
      { seq: 4, value: 'a3' },
      { seq: 3, value: 'a2' },
      { seq: 1, value: 'a1' },
    ]);
    expect(filled().page('b', { limit: 10 })).to.deep.equal([{ seq: 2, value: 'b1' }]);
  });

  it('a limit: stops after that many; before: only items with a smaller sequence', () => {
    const sequence = filled();
    expect(sequence.page('a', { limit: 2 }).map((item) => item.value)).to.deep.equal(['a3', 'a2']);
    expect(sequence.page('a', { limit: 10, before: 3 }).map((item) => item.value)).to.deep.equal(['a1']);
  });

  it('an unknown subject: an empty page', () => {
    expect(filled().page('nobody', { limit: 5 })).to.deep.equal([]);
  });

  it("pruneSubject: drops that subject's items that fail keep, other subjects untouched", () => {
    const sequence = filled();
    sequence.pruneSubject('a', (value) => value !== 'a2');
    sequence.pruneSubject('nobody', () => false);
    expect(sequence.page('a', { limit: 10 }).map((item) => item.value)).to.deep.equal(['a3', 'a1']);
    expect(sequence.page('b', { limit: 10 }).map((item) => item.value)).to.deep.equal(['b1']);
  });

  it('prune: drops failing items of every subject; a later add keeps counting from the last sequence', () => {
    const sequence = filled();
    sequence.prune((value) => value.endsWith('3'));
    expect(sequence.page('a', { limit: 10 }).map((item) => item.value)).to.deep.equal(['a3']);
    expect(sequence.page('b', { limit: 10 })).to.deep.equal([]);
    sequence.add('b', 'b2');
    expect(sequence.page('b', { limit: 10 })).to.deep.equal([{ seq: 5, value: 'b2' }]);
  });
});
