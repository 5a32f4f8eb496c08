import { expect } from 'chai';
import { withinGrace } from '../../../../../shared/platform/lifecycle/within-grace';

describe('withinGrace', () => {
  it('work that fulfils before the deadline: resolves true', async () => {
    expect(await withinGrace(Promise.resolve('done'), 1000)).to.equal(true);
  });

  it('work that never settles: resolves false once the deadline has passed', async () => {
    const started = Date.now();
    expect(await withinGrace(new Promise(() => undefined), 20)).to.equal(false);
    expect(Date.now() - started).to.be.at.least(15);
  });

  it('work that rejects before the deadline: rejects with its error', async () => {
    const failure = new Error('refused');
    const outcome = await withinGrace(Promise.reject(failure), 1000).catch((error: unknown) => error);
    expect(outcome).to.equal(failure);
  });

  it('work that rejects after the deadline: the race has resolved false and the late rejection is not unhandled', async () => {
    let reject!: (error: Error) => void;
    const work = new Promise((_resolve, rejectWork) => (reject = rejectWork));
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      expect(await withinGrace(work, 5)).to.equal(false);
      reject(new Error('late'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
