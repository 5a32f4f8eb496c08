import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { newSubject } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { SCRIPTED_FAILURE, scriptedJobs } from '../support/scripted-jobs';
import { WebhookReceiver } from '../support/webhook-receiver';
import { linkOn, startWebhookStand, type WebhookStand, webhookEnv } from '../support/webhook-stands';

// The built worker runs the real placeholder job, which never fails; a scripted one needs the API and the
// worker in one process (on Redis still through BullMQ and the same worker code).
for (const kind of BACKENDS) {
  describe(`job.failed on ${kind === 'memory' ? 'the memory backend' : 'Redis (API and worker in one process)'}`, function () {
    this.timeout(30_000);
    let receiver: WebhookReceiver;
    let stand: WebhookStand;

    before(async () => {
      receiver = await WebhookReceiver.start();
      stand = await startWebhookStand(kind, webhookEnv(receiver), { mode: 'in-process', operations: scriptedJobs() });
    });
    after(async () => {
      await receiver?.close();
      await stand?.close();
    });

    it('a job that fails sends job.failed with the job as GET /v1/jobs/{id} shows it, plus subject, and no job.succeeded', async () => {
      const subject = newSubject();
      const { token } = await linkOn(stand, subject);
      const submitted = await submitPrompt(stand, token, 'fail');
      expect(submitted.status, submitted.text).to.equal(202);
      const jobId: string = submitted.body.id;
      const event = await receiver.next((p) => p.type === 'job.failed' && p.data.id === jobId, 'job.failed');
      const shown = await stand.call('GET', `/v1/jobs/${jobId}`, { token });
      expect(event.payload.data).to.deep.equal({ ...shown.body, subject });
      expect(event.payload.data).to.deep.include({ status: 'failed', error: { message: SCRIPTED_FAILURE } });
      // A later job's event arrives after it; by then no other event names the failed job.
      const later = await submitPrompt(stand, token, 'fine');
      await receiver.next((p) => p.type === 'job.succeeded' && p.data.id === later.body.id, 'the later job.succeeded');
      expect(receiver.matching((p) => p.data?.id === jobId).map((r) => r.payload.type)).to.deep.equal(['job.failed']);
    });
  });
}
