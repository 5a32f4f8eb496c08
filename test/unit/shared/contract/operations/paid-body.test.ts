import { expect } from 'chai';
import { bodyShapeOf, inputPointer, jobInputOf } from '../../../../../shared/contract/operations/paid-body';

describe('where a paid body carries the job input (paid-body)', () => {
  it('a wrapped body (the default) carries the input under input, and a 400 points there', () => {
    expect(bodyShapeOf({})).to.equal('wrapped');
    expect(jobInputOf({}, { input: { pages: 2 }, idempotency_key: 'k' })).to.deep.equal({ pages: 2 });
    expect(jobInputOf({ bodyShape: 'wrapped' }, undefined)).to.equal(undefined);
    expect(inputPointer({})).to.equal('/body/input');
  });

  it('a top-level body is the input itself, and a 400 points at the body', () => {
    const body = { depth: 'quick', sources: [] };
    expect(bodyShapeOf({ bodyShape: 'top-level' })).to.equal('top-level');
    expect(jobInputOf({ bodyShape: 'top-level' }, body)).to.equal(body);
    expect(inputPointer({ bodyShape: 'top-level' })).to.equal('/body');
  });
});
