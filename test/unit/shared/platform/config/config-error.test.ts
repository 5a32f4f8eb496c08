import { expect } from 'chai';
import { ConfigError } from '../../../../../shared/platform/config/config-error';

describe('ConfigError', () => {
  it('names every variable and its reason in its message, in order, and keeps them as problems', () => {
    const problems = [
      { name: 'REDIS_URL', reason: 'is not a redis: URL' },
      { name: 'PORT', reason: 'must be an integer' },
    ];
    const error = new ConfigError(problems);
    expect(error.message).to.equal('invalid configuration: REDIS_URL is not a redis: URL; PORT must be an integer');
    expect([error.name, error.problems]).to.deep.equal(['ConfigError', problems]);
  });
});
