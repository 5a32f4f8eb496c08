import { expect } from 'chai';
import { JobError } from '../../../../../shared/domain/jobs/job-error';

describe('JobError', () => {
  it('is retryable unless told otherwise, and carries the safe message as its message', () => {
    const error = new JobError('The source did not answer.');
    expect([error.name, error.message, error.retryable]).to.deep.equal(['JobError', 'The source did not answer.', true]);
  });

  it('with retryable false, it says the job fails at once', () => {
    expect(new JobError('The topic has no words.', { retryable: false }).retryable).to.equal(false);
  });
});
