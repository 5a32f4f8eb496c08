import { expect } from 'chai';
import { cancelText, modelDescription, statesPrice } from '../../../../../shared/contract/operations/model-description';
import { DEFAULT_CANCEL_CHARGE } from '../../../../../shared/domain/jobs/processor';

const TWO = { kind: 'fixed', credits: 2 } as const;

describe('the description a model reads', () => {
  it('a free operation: its own text, unchanged', () => {
    expect(modelDescription({ description: 'Reads a thing.' })).to.equal('Reads a thing.');
  });

  it('a priced operation: the price sentence appended once', () => {
    expect(modelDescription({ description: 'Makes a thing.', price: TWO })).to.equal('Makes a thing. Costs 2 credits.');
  });

  it('a text that already states the price, in any case: not repeated', () => {
    expect(statesPrice('Starts a job that COSTS 2 CREDITS, once.', TWO)).to.equal(true);
    expect(statesPrice('Starts a job.', TWO)).to.equal(false);
    expect(modelDescription({ description: 'Makes a thing; costs 2 credits.', price: TWO })).to.equal('Makes a thing; costs 2 credits.');
  });

  it('a paid job: what a late cancel costs follows the price, unless the text says it', () => {
    expect(modelDescription({ description: 'Runs a report.', price: TWO, job: { cancelCharge: 'full' } })).to.equal(
      'Runs a report. Costs 2 credits. A late cancel pays it all.',
    );
    expect(modelDescription({ description: 'Runs a report. A cancel is free.', price: TWO, job: { cancelCharge: 'none' } })).to.equal(
      'Runs a report. A cancel is free. Costs 2 credits.',
    );
  });

  it('cancelText: one sentence per charge; without one, the default charge', () => {
    expect([cancelText('none'), cancelText('progress'), cancelText('full')]).to.deep.equal([
      'A cancel is free.',
      'A late cancel pays the share done.',
      'A late cancel pays it all.',
    ]);
    expect(cancelText()).to.equal(cancelText(DEFAULT_CANCEL_CHARGE));
  });
});
