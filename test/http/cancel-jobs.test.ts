import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob, readJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { scrape, sumOf } from '../support/prometheus-text';
import { SCRIPTED_FAILURE, scriptedJobs } from '../support/scripted-jobs';

const PROBLEM = /^application\/problem\+json/;

for (const backend of BACKENDS) {
  // One job at a time and a long placeholder: the first job keeps running, so the next one stays queued.
  describe(`cancelling a job (DELETE /v1/jobs/{id}) [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { WORKER_CONCURRENCY: '1', PLACEHOLDER_JOB_MS: '60000' });
    });
    after(async () => c.close());

    it('a running job: 202 with cancel_requested_at, then it ends canceled and refunded; a queued one: 200, canceled at once, never starts, its replay uncharged', async () => {
      const token = await c.link(newSubject());
      const before = await scrape(c.metricsUrl);
      const running = (await submitPrompt(c, token, 'long work')).body;
      await pollJob(c, token, running.id, inStatus('running'));
      const queuedKey = newKey();
      const queued = (await submitPrompt(c, token, 'waits its turn', { key: queuedKey })).body;
      expect(queued.status).to.equal('queued');

      const canceledQueued = await c.call('DELETE', `/v1/jobs/${queued.id}`, { token });
      expect(canceledQueued.status).to.equal(200);
      expect(canceledQueued.body).to.include({ id: queued.id, status: 'canceled', refunded_credits: queued.cost, started_at: null });
      expect(canceledQueued.body.cancel_requested_at).to.be.a('string');

      const stopping = await c.call('DELETE', `/v1/jobs/${running.id}`, { token });
      expect(stopping.status).to.equal(202);
      expect(stopping.body.status).to.equal('running');
      expect(stopping.body.cancel_requested_at).to.be.a('string');
      expect(stopping.headers.get('location')).to.equal(`/v1/jobs/${running.id}`);
      const ended = await pollJob(c, token, running.id, (seen) => seen.status !== 'running');
      expect(ended).to.include({ status: 'canceled', refunded_credits: running.cost, result: null });

      // The queued job never started, even once the worker was free.
      expect(await readJob(c, token, queued.id)).to.include({ status: 'canceled', started_at: null, attempts: 0 });
      const replay = await submitPrompt(c, token, 'waits its turn', { key: queuedKey });
      expect(replay.status).to.equal(202);
      expect(replay.body).to.include({ id: queued.id, status: 'canceled', refunded_credits: queued.cost });

      const again = await c.call('DELETE', `/v1/jobs/${queued.id}`, { token });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(canceledQueued.body);

      const me = await c.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 2, credits_spent: 0, credits_refunded: 2 });
      const after = await scrape(c.metricsUrl);
      const delta = (name: string, labels: Record<string, string>) => sumOf(after, name, labels) - sumOf(before, name, labels);
      expect(delta('connector_jobs_canceled_total', { operation: 'createJob' })).to.equal(2);
      expect(delta('connector_credits_refunded_total', { operation: 'createJob', reason: 'canceled' })).to.equal(2);
      expect(delta('connector_jobs_completed_total', { operation: 'createJob', outcome: 'canceled' })).to.equal(2);
      // The queue gauge counts both as canceled, neither as failed (BullMQ holds them in its failed set).
      expect(delta('connector_queue_jobs', { state: 'canceled' })).to.equal(2);
      expect(delta('connector_queue_jobs', { state: 'failed' })).to.equal(0);
    });

    it('the dashboard usage of a subject with a canceled job shows charged and refunded per day, credits net', async () => {
      const subject = newSubject();
      const token = await c.link(subject);
      const first = (await submitPrompt(c, token, 'one')).body;
      const second = (await submitPrompt(c, token, 'two')).body;
      for (const id of [second.id, first.id]) expect([200, 202]).to.include((await c.call('DELETE', `/v1/jobs/${id}`, { token })).status);
      await pollJob(c, token, first.id, inStatus('canceled'));
      const usage = await c.call('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}&days=2`, {
        headers: { 'x-link-secret': c.config.linkSecret },
      });
      expect(usage.status).to.equal(200);
      expect(usage.body).to.include({ credits_spent: 0, credits_refunded: 2, jobs_charged: 2 });
      expect(usage.body.days[0]).to.include({ charged: 2, refunded: 2, credits: 0 });
      expect(usage.body.days[1]).to.include({ charged: 0, refunded: 0, credits: 0 });
    });

    it('another subject’s job and an unknown id answer 404 problem+json; the owner’s canceled job stays refunded once', async () => {
      const token = await c.link(newSubject());
      const accepted = (await submitPrompt(c, token, 'soon canceled')).body;
      expect([200, 202]).to.include((await c.call('DELETE', `/v1/jobs/${accepted.id}`, { token })).status);
      await pollJob(c, token, accepted.id, inStatus('canceled'));
      const other = await c.link(newSubject());
      const foreign = await c.call('DELETE', `/v1/jobs/${accepted.id}`, { token: other });
      expect(foreign.status).to.equal(404);
      expect(foreign.headers.get('content-type')).to.match(PROBLEM);
      const unknown = await c.call('DELETE', '/v1/jobs/job_unknown', { token });
      expect(unknown.status).to.equal(404);
      expect(unknown.headers.get('content-type')).to.match(PROBLEM);
      expect((await readJob(c, token, accepted.id)).refunded_credits).to.equal(accepted.cost);
      expect((await c.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
        jobs_charged: 1,
        credits_spent: 0,
        credits_refunded: accepted.cost,
      });
    });
  });

  describe(`cancelling a finished job, and a failed job's refund [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { PLACEHOLDER_JOB_MS: '0' }, { operations: scriptedJobs() });
    });
    after(async () => c.close());

    it('a succeeded job answers 409 problem+json and stays charged', async () => {
      const token = await c.link(newSubject());
      const accepted = (await submitPrompt(c, token, 'quick')).body;
      await pollJob(c, token, accepted.id, inStatus('succeeded'));
      const refused = await c.call('DELETE', `/v1/jobs/${accepted.id}`, { token });
      expect(refused.status).to.equal(409);
      expect(refused.headers.get('content-type')).to.match(PROBLEM);
      expect(refused.body.type).to.equal('urn:connector:problem:job-finished');
      expect((await c.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
        jobs_charged: 1,
        credits_spent: 1,
        credits_refunded: 0,
      });
    });

    it('a job that fails is refunded in full: refunded_credits equals its cost, usage is net, and it cannot be canceled', async () => {
      const token = await c.link(newSubject());
      const before = await scrape(c.metricsUrl);
      const accepted = (await submitPrompt(c, token, 'fail')).body;
      const failed = await pollJob(c, token, accepted.id, inStatus('failed'));
      expect(failed).to.include({ refunded_credits: accepted.cost, cancel_requested_at: null });
      expect(failed.error).to.deep.equal({ message: SCRIPTED_FAILURE });
      expect((await c.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
        jobs_charged: 1,
        credits_spent: 0,
        credits_refunded: accepted.cost,
      });
      expect((await c.call('DELETE', `/v1/jobs/${accepted.id}`, { token })).status).to.equal(409);
      const after = await scrape(c.metricsUrl);
      const labels = { operation: 'createJob', reason: 'failed' };
      expect(sumOf(after, 'connector_credits_refunded_total', labels) - sumOf(before, 'connector_credits_refunded_total', labels)).to.equal(
        accepted.cost,
      );
      expect(c.logs.lines.some((line) => line.includes('"job failed"') && line.includes(accepted.id))).to.equal(true);
    });
  });
}
