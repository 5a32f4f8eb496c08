import { expect } from 'chai';
import { NO_EVENTS } from '../../../../../shared/domain/webhooks/event-queue';
import { newEvent } from '../../../../../shared/domain/webhooks/webhook-event';

describe('NO_EVENTS (the queue of a connector without a receiver)', () => {
  it('is disabled, so nothing is recorded for it', () => {
    expect(NO_EVENTS.enabled).to.equal(false);
  });

  it('enqueue and close resolve at once with nothing, whatever they are given', async () => {
    expect(await NO_EVENTS.enqueue(newEvent('job.succeeded', 'job-1'))).to.equal(undefined);
    expect(await NO_EVENTS.close(0)).to.equal(undefined);
  });
});
