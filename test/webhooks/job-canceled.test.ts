import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { newSubject } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { SCRIPTED_FAILURE, scriptedJobs } from '../support/scripted-jobs';
import { WebhookReceiver } from '../support/webhook-receiver';
import { linkOn, startWebhookStand, type WebhookStand, webhookEnv } from '../support/webhook-stands';

// One job at a time and a long placeholder: a first job keeps running, so the next one stays queued. The API
// and the worker share one process (on Redis still through BullMQ and the worker's code).
for (const kind of BACKENDS) {
  describe(`job.canceled and a failed job's refund in job.failed on ${kind}`, function () {
    this.timeout(30_000);
    let receiver: WebhookReceiver;
    let stand: WebhookStand;

    before(async () => {
      receiver = await WebhookReceiver.start();
      const env = webhookEnv(receiver, { WORKER_CONCURRENCY: '1', PLACEHOLDER_JOB_MS: '60000' });
      stand = await startWebhookStand(kind, env, { mode: 'in-process', operations: scriptedJobs() });
    });
    after(async () => {
      await receiver?.close();
      await stand?.close();
    });

    it('a canceled queued job and a canceled running job each send one signed job.canceled (the job as GET shows it, plus subject), a repeated cancel none, and a failed job’s job.failed carries refunded_credits', async () => {
      const subject = newSubject();
      const { token } = await linkOn(stand, subject);
      const running = (await submitPrompt(stand, token, 'long')).body;
      await pollJob(stand, token, running.id, inStatus('running'));
      const queued = (await submitPrompt(stand, token, 'waits')).body;
      expect((await stand.call('DELETE', `/v1/jobs/${queued.id}`, { token })).status).to.equal(200);
      expect((await stand.call('DELETE', `/v1/jobs/${running.id}`, { token })).status).to.equal(202);
      for (const job of [queued, running]) {
        const event = await receiver.next((p) => p.type === 'job.canceled' && p.data.id === job.id, `job.canceled of ${job.id}`);
        const headers = { id: event.id, timestamp: event.timestamp, signature: event.signature };
        expect(receiver.verify(event.body, headers)).to.deep.equal(event.payload);
        const shown = await stand.call('GET', `/v1/jobs/${job.id}`, { token });
        expect(event.payload.data).to.deep.equal({ ...shown.body, subject });
        expect(event.payload.data).to.include({ status: 'canceled', refunded_credits: job.cost });
      }
      // A second cancel of a canceled job records nothing new.
      expect((await stand.call('DELETE', `/v1/jobs/${queued.id}`, { token })).status).to.equal(200);
      const later = (await submitPrompt(stand, token, 'fail')).body;
      const failed = await receiver.next((p) => p.type === 'job.failed' && p.data.id === later.id, 'the later job.failed');
      expect(failed.payload.data).to.include({ refunded_credits: later.cost });
      expect(failed.payload.data.error).to.deep.equal({ message: SCRIPTED_FAILURE });
      for (const job of [queued, running]) {
        expect(receiver.matching((p) => p.data?.id === job.id).map((r) => r.payload.type)).to.deep.equal(['job.canceled']);
      }
    });
  });
}
