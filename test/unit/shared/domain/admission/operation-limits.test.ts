import { expect } from 'chai';
import {
  limitsProblem,
  limitsText,
  operationPolicyName,
  operationRateKey,
  publishedLimits,
} from '../../../../../shared/domain/admission/operation-limits';

describe('shared/domain/admission/operation-limits', () => {
  it('the sentence a model reads names each limit declared, capitalised, credits in the singular for 1', () => {
    expect(limitsText({ perMinute: 20, dailyCredits: 30 })).to.equal('At most 20 calls a minute; at most 30 credits a day.');
    expect(limitsText({ perMinute: 1_000 })).to.equal('At most 1,000 calls a minute.');
    expect(limitsText({ dailyCredits: 1 })).to.equal('At most 1 credit a day.');
    expect([limitsText({}), limitsText(undefined)]).to.deep.equal(['', '']);
  });

  it('x-limits publishes the declared figures in snake case with the sentence', () => {
    expect(publishedLimits({ perMinute: 20, dailyCredits: 30 })).to.deep.equal({
      per_minute: 20,
      daily_credits: 30,
      text: 'At most 20 calls a minute; at most 30 credits a day.',
    });
    expect(publishedLimits({ dailyCredits: 5 })).to.deep.equal({ daily_credits: 5, text: 'At most 5 credits a day.' });
  });

  it('a limit that is not a whole number in range, an unknown field, or a daily cap without a price is a problem; in range it is none', () => {
    expect(limitsProblem(undefined, false)).to.equal(undefined);
    expect(limitsProblem({ perMinute: 1, dailyCredits: 1_000_000_000 }, true)).to.equal(undefined);
    expect(limitsProblem({ perMinute: 1_000_001 }, true)).to.equal('perMinute must be a whole number from 1 to 1,000,000');
    expect(limitsProblem({ dailyCredits: 0 }, true)).to.equal('dailyCredits must be a whole number from 1 to 1,000,000,000');
    expect(limitsProblem({ perHour: 3 }, true)).to.equal('limits takes perMinute and dailyCredits only');
    expect(limitsProblem({ dailyCredits: 3 }, false)).to.equal('dailyCredits is set on an operation without a price');
    expect(limitsProblem({ perMinute: 3 }, false)).to.equal(undefined);
  });

  it('the window of an operation is counted apart from the subject’s, per operation and subject, under the policy op-<operationId>', () => {
    expect(operationRateKey('countWords', 'a@example.com')).to.equal('op:countWords:sub:a@example.com');
    expect(operationRateKey('countWords', 'a@example.com')).to.not.equal(operationRateKey('translateDocument', 'a@example.com'));
    expect(operationPolicyName('countWords')).to.equal('op-countWords');
  });
});
