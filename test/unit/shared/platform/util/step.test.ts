import { expect } from 'chai';
import { andThen, wrapFailure } from '../../../../../shared/platform/util/step';

const wrap = (error: unknown) => new Error(`wrapped: ${(error as Error).message}`);

describe('steps: a value now or a promise of it', () => {
  it('andThen on a value: runs next at once and returns its result, no promise', () => {
    const result = andThen(2, (n) => n * 3);
    expect(result).to.equal(6);
  });

  it('andThen on a promise: returns a promise of next applied to the resolved value', async () => {
    const result = andThen(Promise.resolve(2), (n) => n * 3);
    expect(result).to.be.instanceOf(Promise);
    expect(await result).to.equal(6);
  });

  it('wrapFailure of a run that returns a value: that value, unchanged and synchronous', () => {
    expect(wrapFailure(() => 'ok', wrap)).to.equal('ok');
  });

  it('wrapFailure of a run that throws: the wrapped error is thrown synchronously', () => {
    expect(() =>
      wrapFailure(() => {
        throw new Error('boom');
      }, wrap),
    ).to.throw('wrapped: boom');
  });

  it('wrapFailure of a run that rejects: a promise rejected with the wrapped error', async () => {
    const step = wrapFailure(() => Promise.reject(new Error('later')), wrap);
    const outcome = await Promise.resolve(step).then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    expect(outcome).to.equal('wrapped: later');
  });

  it('wrapFailure of a run that resolves: the resolved value', async () => {
    expect(await wrapFailure(() => Promise.resolve(7), wrap)).to.equal(7);
  });
});
