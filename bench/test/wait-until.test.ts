import { expect } from 'chai';
import { GiveUp } from '../../test/testkit/wait-for';
import { waitUntil } from '../bench-processes';

describe('the bench waitUntil (built on waitFor)', () => {
  it('passes a GiveUp on instead of waiting out its deadline', async () => {
    const error = await waitUntil(
      async () => {
        throw new GiveUp('api-redis exited with 78: REDIS_URL is invalid');
      },
      60_000,
      'api-redis',
    ).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).to.equal('api-redis exited with 78: REDIS_URL is invalid');
  });
});
