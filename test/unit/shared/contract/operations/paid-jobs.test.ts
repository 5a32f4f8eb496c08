import { expect } from 'chai';
import type { Operation } from '../../../../../shared/contract/operations/operation';
import { PAID_JOBS, paidJobsOf } from '../../../../../shared/contract/operations/paid-jobs';
import { OPERATIONS } from '../../../../../shared/contract/operations/registry';

const op = (operationId: string, job?: { operationId: string }) => ({ operationId, job }) as unknown as Operation;

describe('paidJobsOf (the paid jobs of a registry)', () => {
  it("each paid operation's job, in registry order; free operations contribute none", () => {
    const [a, b] = [{ operationId: 'runA' }, { operationId: 'runB' }];
    expect(paidJobsOf([op('runA', a), op('getMe'), op('runB', b)])).to.deep.equal([a, b]);
    expect(paidJobsOf([op('getMe')])).to.deep.equal([]);
  });

  it('a job declared for another operation: refused, naming both', () => {
    expect(() => paidJobsOf([op('runA', { operationId: 'runB' })])).to.throw('runA: its job is declared for runB');
  });

  it('two operations with one job id: refused', () => {
    expect(() => paidJobsOf([op('runA', { operationId: 'runA' }), op('runA', { operationId: 'runA' })])).to.throw(
      'two operations run the job runA',
    );
  });

  it("PAID_JOBS: the shipped registry's paid operations, one job each", () => {
    const paid = OPERATIONS.filter((operation) => operation.job !== undefined).map((operation) => operation.operationId);
    expect(PAID_JOBS.map((job) => job.operationId)).to.deep.equal(paid);
    expect(paid.length).to.be.greaterThan(0);
  });
});
