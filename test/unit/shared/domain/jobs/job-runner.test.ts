import { expect } from 'chai';
import { backoffDelay } from '../../../../../shared/domain/jobs/job-runner';

describe('backoff', () => {
  it('backoff doubles after each failed attempt', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(100, attempt))).to.deep.equal([100, 200, 400, 800]);
  });
});
