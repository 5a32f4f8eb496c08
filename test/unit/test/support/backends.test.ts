import { expect } from 'chai';
import { selectedBackends } from '../../../support/backends';

describe('selectedBackends (TEST_BACKENDS)', () => {
  it('unset or blank, selects every backend, memory first', () => {
    expect(selectedBackends(undefined)).to.deep.equal(['memory', 'redis']);
    expect(selectedBackends(' ')).to.deep.equal(['memory', 'redis']);
  });

  it('naming one backend, selects only that one', () => {
    expect(selectedBackends('memory')).to.deep.equal(['memory']);
    expect(selectedBackends('redis')).to.deep.equal(['redis']);
  });

  it('naming both in any order with spaces, selects both in the usual order', () => {
    expect(selectedBackends('redis, memory')).to.deep.equal(['memory', 'redis']);
  });

  it('naming an unknown backend, throws an error that names it and the known ones', () => {
    expect(() => selectedBackends('memory,postgres')).to.throw('TEST_BACKENDS names postgres; known backends: memory, redis');
  });
});
