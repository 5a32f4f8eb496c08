import { expect } from 'chai';
import { MAX_RETRY_DELAY_MS, RETRY_WINDOW_MS, retryAttempts, retryDelay } from '../../../../../shared/domain/webhooks/retry-schedule';

describe('the webhook retry schedule', () => {
  it('doubles from the base, is capped at an hour, and makes enough attempts to span 24 hours', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(5000, n))).to.deep.equal([5000, 10_000, 20_000, 40_000]);
    expect(retryDelay(5000, 30)).to.equal(MAX_RETRY_DELAY_MS);
    for (const base of [10, 50, 5000, 600_000]) {
      const attempts = retryAttempts(base);
      const waits = Array.from({ length: attempts - 1 }, (_, i) => retryDelay(base, i + 1));
      const total = waits.reduce((a, b) => a + b, 0);
      expect(total, `base ${base}`).to.be.at.least(RETRY_WINDOW_MS);
      expect(total - waits[waits.length - 1], `base ${base}: one attempt fewer would not span 24 h`).to.be.below(RETRY_WINDOW_MS);
    }
    expect(retryAttempts(5000)).to.equal(34);
  });
});
