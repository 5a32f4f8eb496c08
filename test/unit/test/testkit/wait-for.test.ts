import { expect } from 'chai';
import { GiveUp, waitFor } from '../../../testkit/wait-for';

describe('waitFor', () => {
  it('a probe that throws GiveUp ends the wait at once with that error, long before the deadline', async () => {
    let calls = 0;
    const started = Date.now();
    const error = await waitFor(
      () => {
        calls += 1;
        throw new GiveUp('the process exited with 1: boom');
      },
      { timeoutMs: 60_000, intervalMs: 10 },
    ).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(GiveUp).and.have.property('message', 'the process exited with 1: boom');
    expect(calls).to.equal(1);
    expect(Date.now() - started).to.be.below(30_000);
  });

  it('any other error counts as not yet: the probe is called again until it holds', async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls += 1;
        if (calls < 3) throw new Error('not listening yet');
        return 'ready';
      },
      { timeoutMs: 10_000, intervalMs: 5 },
    );
    expect(value).to.equal('ready');
    expect(calls).to.equal(3);
  });

  it('at the deadline names what it waited for and the last error the probe threw', async () => {
    const error = await waitFor(
      () => {
        throw new Error('ECONNREFUSED');
      },
      { timeoutMs: 50, intervalMs: 5, what: 'the API' },
    ).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).to.match(/^timed out after 50 ms waiting for the API: ECONNREFUSED$/);
  });
});
