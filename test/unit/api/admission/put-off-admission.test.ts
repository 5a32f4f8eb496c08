import { expect } from 'chai';
import type { Request, Response } from 'express';
import { admitPutOff, PutOffAdmission } from '../../../../api/admission/put-off-admission';
import type { BearerAdmission } from '../../../../shared/domain/admission/admission-store';

const REQUEST = { connectionId: 'conn-1', subject: 'user-1', rateKey: 'sub:user-1', windowSeconds: 60, quota: 5 };
const ADMITTED: BearerAdmission = { outcome: 'admitted', window: { count: 1, resetInSeconds: 60 } };

/** A put-off admission whose answer and own round trip are recorded; `refuse` makes the answer throw. */
function putOff({ refuse = false } = {}) {
  const answered: BearerAdmission[] = [];
  let ownTrips = 0;
  const admission = new PutOffAdmission(
    REQUEST,
    async (outcome) => {
      answered.push(outcome);
      if (refuse) throw new Error('refused');
    },
    async () => {
      ownTrips++;
      return ADMITTED;
    },
  );
  return { admission, answered, ownTrips: () => ownTrips };
}

/** Runs the error middleware for `error` with `admission` in the request's state; answers what it passed on. */
async function afterError(error: Error, admission: PutOffAdmission | undefined): Promise<unknown> {
  const res = { locals: admission ? { putOff: admission } : {} } as unknown as Response;
  return new Promise((resolve) => admitPutOff(error, {} as Request, res, resolve));
}

describe('PutOffAdmission (a paid job’s admission put off until its claim)', () => {
  it('settled by the claim: the outcome is answered, it is no longer pending, and admitNow makes no round trip', async () => {
    const { admission, answered, ownTrips } = putOff();
    expect(admission.pending).to.equal(true);
    await admission.settle(ADMITTED);
    expect(admission.pending).to.equal(false);
    await admission.admitNow();
    expect(answered).to.deep.equal([ADMITTED]);
    expect(ownTrips()).to.equal(0);
  });

  it('a refusal of the settled outcome is thrown to the claim’s caller', async () => {
    const { admission } = putOff({ refuse: true });
    const thrown = await admission.settle({ outcome: 'revoked' }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(thrown).to.equal('refused');
  });

  it('never settled: admitNow makes the round trip once and answers its outcome, however often it is called', async () => {
    const { admission, answered, ownTrips } = putOff();
    await admission.admitNow();
    await admission.admitNow();
    expect(ownTrips()).to.equal(1);
    expect(answered).to.deep.equal([ADMITTED]);
    expect(admission.pending).to.equal(false);
  });
});

describe('admitPutOff (the error middleware of requests that failed before their claim)', () => {
  it('with no admission put off: the error is passed on as it is', async () => {
    const error = new Error('bad body');
    expect(await afterError(error, undefined)).to.equal(error);
  });

  it('with one pending that admits: it is made first, then the error is passed on', async () => {
    const { admission, ownTrips } = putOff();
    const error = new Error('bad body');
    expect(await afterError(error, admission)).to.equal(error);
    expect(ownTrips()).to.equal(1);
  });

  it('with one pending that refuses: the refusal is passed on in place of the error', async () => {
    const { admission } = putOff({ refuse: true });
    const passed = (await afterError(new Error('bad body'), admission)) as Error;
    expect(passed.message).to.equal('refused');
  });

  it('with one the claim settled: no round trip, the error passed on', async () => {
    const { admission, ownTrips } = putOff();
    await admission.settle(ADMITTED);
    const error = new Error('backend failing after the claim');
    expect(await afterError(error, admission)).to.equal(error);
    expect(ownTrips()).to.equal(0);
  });
});
