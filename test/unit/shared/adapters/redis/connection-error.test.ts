import { expect } from 'chai';
import { isConnectionError } from '../../../../../shared/adapters/redis/connection-error';

describe('isConnectionError', () => {
  for (const message of [
    'connect ECONNREFUSED 127.0.0.1:6379',
    'read ECONNRESET',
    'connect ETIMEDOUT',
    'Connection is closed.',
    "Stream isn't writeable and enableOfflineQueue options is false",
    'Reached the max retries per request limit (which is 1).',
    'connection is closed',
  ]) {
    it(`a lost connection ("${message}"): true`, () => {
      expect(isConnectionError(new Error(message))).to.equal(true);
    });
  }

  it('any other error (a script error, a missing key): false', () => {
    expect(isConnectionError(new Error('ERR Error running script'))).to.equal(false);
    expect(isConnectionError(new Error('Missing lock for job 1. moveToFinished'))).to.equal(false);
  });
});
