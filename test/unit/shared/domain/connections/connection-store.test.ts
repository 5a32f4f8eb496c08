import { expect } from 'chai';
import { LAST_USE_RESOLUTION_SECONDS, lastUseIsStale } from '../../../../../shared/domain/connections/connection-store';

describe('lastUseIsStale (when a use is recorded over the stored one)', () => {
  it('no use stored yet: the first use is recorded', () => {
    expect(lastUseIsStale(undefined, 1000)).to.equal(true);
  });

  it('a use less than the resolution after the stored one: not recorded', () => {
    expect(lastUseIsStale(1000, 1000 + LAST_USE_RESOLUTION_SECONDS - 1)).to.equal(false);
    expect(lastUseIsStale(1000, 1000)).to.equal(false);
  });

  it('a use at least the resolution (a minute) after the stored one: recorded', () => {
    expect(LAST_USE_RESOLUTION_SECONDS).to.equal(60);
    expect(lastUseIsStale(1000, 1060)).to.equal(true);
    expect(lastUseIsStale(1000, 5000)).to.equal(true);
  });
});
