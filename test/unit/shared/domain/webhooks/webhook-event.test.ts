import { expect } from 'chai';
import { eventId, newEvent } from '../../../../../shared/domain/webhooks/webhook-event';

describe('webhook event ids', () => {
  it('are derived from the type and the job or connection id: the same event twice has one id, another has another', () => {
    expect(eventId('job.succeeded', 'job_a')).to.equal(newEvent('job.succeeded', 'job_a').id);
    expect(eventId('job.succeeded', 'job_a')).to.match(/^evt_[A-Za-z0-9_-]{26}$/);
    expect(eventId('job.failed', 'job_a')).to.not.equal(eventId('job.succeeded', 'job_a'));
    expect(eventId('job.succeeded', 'job_b')).to.not.equal(eventId('job.succeeded', 'job_a'));
  });
});
