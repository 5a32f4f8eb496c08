import { Queue } from 'bullmq';
import { expect } from 'chai';
import Redis from 'ioredis';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { eventId } from '../../shared/domain/webhooks/webhook-event';
import { newSubject } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { WebhookReceiver } from '../support/webhook-receiver';
import { linkOn, startWebhookStand, type WebhookStand, webhookEnv } from '../support/webhook-stands';
import { waitFor } from '../testkit/wait-for';

describe('webhook events on Redis when the worker process dies', function () {
  this.timeout(90_000);
  let receiver: WebhookReceiver;
  let stand: WebhookStand;
  let deliveries: Queue;
  let client: Redis;

  before(async function () {
    receiver = await WebhookReceiver.start();
    // Short locks, so that the job of a killed worker is taken up again within seconds.
    stand = await startWebhookStand('redis', webhookEnv(receiver, { JOB_LOCK_MS: '1000', JOB_STALLED_INTERVAL_MS: '500' }));
    client = new Redis(stand.redis!.url, { maxRetriesPerRequest: null });
    deliveries = new Queue(new RedisKeys('').webhookQueueName, { connection: client, prefix: `${stand.env.REDIS_KEY_PREFIX}bull` });
  });
  after(async () => {
    await deliveries?.close();
    client?.disconnect();
    await receiver?.close();
    await stand?.close();
  });

  it('a worker killed after a job succeeded and before its event was sent still delivers it, once, after a restart', async () => {
    // This worker dies (SIGKILL) right after recording a finished job's event, before BullMQ marks the job
    // completed: the test-only hook needs NODE_ENV=test too.
    const doomed = await stand.restartWorker({ NODE_ENV: 'test', CONNECTOR_TEST_CRASH_AFTER_JOB_EVENT: '1' });
    const subject = newSubject();
    const { token } = await linkOn(stand, subject);
    const submitted = await submitPrompt(stand, token, 'survive me');
    expect(submitted.status, submitted.text).to.equal(202);
    const jobId: string = submitted.body.id;

    expect(await doomed.proc.exited).to.equal('SIGKILL');
    // The event was recorded before the crash, and the job is not finished: nothing has been sent.
    const id = eventId('job.succeeded', jobId);
    expect(await deliveries.getJob(id), 'the recorded delivery').to.not.equal(undefined);
    expect((await stand.call('GET', `/v1/jobs/${jobId}`, { token })).body.status).to.not.equal('succeeded');
    expect(receiver.matching((p) => p.data?.id === jobId)).to.deep.equal([]);

    await stand.restartWorker();
    const event = await receiver.next((p) => p.type === 'job.succeeded' && p.data.id === jobId, 'job.succeeded after the restart', 30_000);
    expect(event.id).to.equal(id);
    // It ran twice (the first run's worker died before marking it done) and the event shows the final job.
    expect(event.payload.data).to.deep.include({ id: jobId, subject, status: 'succeeded', attempts: 2 });

    // Whatever follows is delivered after it; by then there is still one event, one id, for the job.
    const marker = await linkOn(stand, newSubject());
    await receiver.next((p) => p.type === 'connection.created' && p.data.connection_id === marker.connection_id, 'a later event');
    const aboutJob = receiver.matching((p) => p.data?.id === jobId);
    expect(aboutJob.map((r) => [r.id, r.payload.type])).to.deep.equal([[id, 'job.succeeded']]);
  });

  it('a receiver answering 410 leaves the delivery failed after one attempt, never retried', async () => {
    const subject = newSubject();
    receiver.answer = (request) => (request.payload?.data?.subject === subject ? 410 : 204);
    try {
      const { connection_id } = await linkOn(stand, subject);
      const id = eventId('connection.created', connection_id);
      const job = await waitFor(async () => ((await deliveries.getJobState(id)) === 'failed' ? deliveries.getJob(id) : undefined), {
        what: 'the delivery to fail',
      });
      expect(job.attemptsMade).to.equal(1);
      expect(receiver.matching((p) => p.data?.connection_id === connection_id)).to.have.length(1);
    } finally {
      receiver.answer = () => 204;
    }
  });
});
