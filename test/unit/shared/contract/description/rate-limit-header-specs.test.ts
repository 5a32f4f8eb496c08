import { expect } from 'chai';
import { rateLimitHeaderSpecs } from '../../../../../shared/contract/description/rate-limit-header-specs';

describe('rateLimitHeaderSpecs', () => {
  it('declares RateLimit-Policy and RateLimit, both strings, required as asked', () => {
    for (const required of [true, false]) {
      const specs = rateLimitHeaderSpecs(required);
      expect(Object.keys(specs)).to.deep.equal(['RateLimit-Policy', 'RateLimit']);
      for (const spec of Object.values(specs)) expect(spec).to.deep.include({ schema: { type: 'string' }, required });
    }
  });

  it('each description gives an example of the field in the draft syntax', () => {
    const specs = rateLimitHeaderSpecs(true);
    expect(specs['RateLimit-Policy'].description).to.contain('"subject";q=120;w=60');
    expect(specs.RateLimit.description).to.contain('"subject";r=119;t=42');
  });
});
