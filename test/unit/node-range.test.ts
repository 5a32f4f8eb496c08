import { expect } from 'chai';
import { admits } from '../support/node-range';

describe('admits (the engines.node reader the Dockerfile test uses)', () => {
  const range = '^20.19.0 || >=22.12.0';

  it('admits versions at or above the floor of either clause: 20.19.0, 20.20.2, 22.12.0, 24.21.0, 26.12.1', () => {
    for (const version of ['20.19.0', '20.20.2', '22.12.0', '24.21.0', '26.12.1']) {
      expect(admits(range, version), version).to.equal(true);
    }
  });

  it("refuses versions below a floor or past a caret clause's major: 20.18.3, 21.7.3, 22.11.0, 18.20.8", () => {
    for (const version of ['20.18.3', '21.7.3', '22.11.0', '18.20.8']) {
      expect(admits(range, version), version).to.equal(false);
    }
  });

  it('throws on a clause form it cannot judge, such as 20.x, instead of answering', () => {
    expect(() => admits('20.x', '20.1.0')).to.throw(/neither \^X\.Y\.Z nor >=X\.Y\.Z/);
    expect(() => admits('>=20.19', '24.21.0')).to.throw(/neither/);
  });
});
