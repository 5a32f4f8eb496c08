import { expect } from 'chai';
import { buildFlags } from '../compare-cli';

describe('bench:compare: the flags after a tree', () => {
  it('sorts env:NAME=value into variables, trace=<ratio> into the ratio and the rest into Node flags, in order', () => {
    expect(buildFlags(['--max-semi-space-size=16', 'env:BILLING_MODE=prepaid', 'trace=0.1', '--heap-growing-percent=200'])).to.deep.equal({
      nodeArgs: ['--max-semi-space-size=16', '--heap-growing-percent=200'],
      tracingRatio: '0.1',
      env: { BILLING_MODE: 'prepaid' },
    });
  });

  it('keeps everything after the first = as the value, an empty value included', () => {
    expect(buildFlags(['env:EXTRA=a=b', 'env:EMPTY=']).env).to.deep.equal({ EXTRA: 'a=b', EMPTY: '' });
  });

  it('lets the last of two words for the same variable win', () => {
    expect(buildFlags(['env:BILLING_MODE=metered', 'env:BILLING_MODE=prepaid']).env).to.deep.equal({ BILLING_MODE: 'prepaid' });
  });

  it('gives a tree without flags no variables, no ratio and no Node flags', () => {
    expect(buildFlags([])).to.deep.equal({ nodeArgs: [], env: {} });
  });

  it('refuses an env: word without a name or without =, naming the word, rather than passing it to Node', () => {
    for (const bad of ['env:', 'env:BILLING_MODE', 'env:=prepaid', 'env:1ST=x', 'env:BILLING MODE=prepaid']) {
      expect(() => buildFlags([bad]), bad).to.throw(`build flag ${JSON.stringify(bad)}: write env:NAME=value`);
    }
  });
});
