import { setTimeout as jitter } from 'node:timers/promises';
import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { priceOf } from '../../shared/domain/jobs/price';
import { waitFor } from '../testkit/wait-for';
import { expectCancelRefund } from './cancel-refund';
import { type ConnectorOptions, type ConnectorUnderTest, newKey, newSubject } from './harness';
import { inStatus, pollJob } from './job-polling';
import { acceptedJob, paidOperationOf, submitPrompt } from './job-submission';
import { type BillingMode, expectHoldsSettled, grantCredits } from './prepaid-settlement';
import { aroundCreateJob } from './scripted-jobs';

/** How many jobs each proof races; every one must end canceled and refunded, or ran and charged. */
export const TRIALS = 200;

// Jobs of 300 ms, eight at a time: a backlog of 200 drains in about 8 s, and each job's cancel comes at a
// random moment within the first 6 s, so that cancels land on queued jobs, on jobs a worker is just taking,
// on running ones (stopped, or finishing first) and on finished ones (a random delay spreads the race; it
// waits for nothing).
const RACE_ENV = { WORKER_CONCURRENCY: '8', PLACEHOLDER_JOB_MS: '200' };
const cancelDelay = () => Math.floor(Math.random() * 3000);

/** Starts a connector (API and in-process worker) on the topology under test with `env` added to its own. */
export type StartConnector = (env: Record<string, string>, options: ConnectorOptions) => Promise<ConnectorUnderTest>;

/** Starts two connectors sharing one store and queue on the topology under test. */
export type StartPair = (env: Record<string, string>, options: ConnectorOptions) => Promise<[ConnectorUnderTest, ConnectorUnderTest]>;

/** The registry with createJob's processor counting the starts of every job, so a test sees what really ran. */
function recordingJobs(starts: Map<string, number>): Operation[] {
  return aroundCreateJob(OPERATIONS, (input, context, normal) => {
    starts.set(context.jobId, (starts.get(context.jobId) ?? 0) + 1);
    return normal(input, context);
  });
}

interface Trial {
  id: string;
  key: string;
  cost: number;
  answers: number[];
}

const FINAL = ['succeeded', 'failed', 'canceled'];

/** Waits until every job is final and returns them by id (each job read at most once per round, in parallel). */
async function finalJobs(c: ConnectorUnderTest, token: string, trials: Trial[]): Promise<Map<string, Record<string, any>>> {
  const final = new Map<string, Record<string, any>>();
  await waitFor(
    async () => {
      await Promise.all(
        trials
          .filter((t) => !final.has(t.id))
          .map(async (trial) => {
            const job = (await c.call('GET', `/v1/jobs/${trial.id}`, { token })).body;
            if (FINAL.includes(job.status)) final.set(trial.id, job);
          }),
      );
      return final.size === trials.length;
    },
    { what: 'every raced job to be final', timeoutMs: 60_000, intervalMs: 100 },
  );
  return final;
}

/**
 * The checks every proof shares: each job ended canceled and refunded (and, when a cancel answered 200, never
 * started) or ran and succeeded charged, never both; the subject's totals and its day are net of exactly those
 * refunds; a replay of each key returns its job as it ended, uncharged, and runs nothing: a job submitted after
 * the replays finishes while no replayed job starts again.
 */
async function expectExactlyOnce(
  c: ConnectorUnderTest,
  subject: string,
  token: string,
  trials: Trial[],
  starts: Map<string, number>,
  prepaid?: { apis: readonly ConnectorUnderTest[]; granted: number },
): Promise<{ canceled: number; ran: number }> {
  // The race is real only if cancels met queued jobs (200) and running ones (202).
  const answers = new Set(trials.flatMap((trial) => trial.answers));
  expect([...answers], 'the cancels’ answers').to.include.members([200, 202]);
  const final = await finalJobs(c, token, trials);
  let charged = 0;
  let refunded = 0;
  let canceled = 0;
  for (const trial of trials) {
    const job = final.get(trial.id)!;
    charged += trial.cost;
    if (job.status === 'canceled') {
      canceled++;
      refunded += expectCancelRefund({ ...job, cost: trial.cost } as Parameters<typeof expectCancelRefund>[0], trial.id);
      expect(job, trial.id).to.include({ result: null });
      expect(job.cancel_requested_at, trial.id).to.be.a('string');
      if (trial.answers.includes(200) && !trial.answers.includes(202)) {
        expect(starts.has(trial.id), `${trial.id} was canceled while queued but started`).to.equal(false);
        expect(job, trial.id).to.include({ started_at: null, attempts: 0 });
      }
    } else {
      expect(job, trial.id).to.include({ status: 'succeeded', refunded_credits: 0 });
      expect(starts.get(trial.id), `${trial.id} succeeded without running once`).to.equal(1);
      expect(trial.answers.every((answer) => answer === 202 || answer === 409)).to.equal(true);
    }
  }
  const usage = (await c.call('GET', '/v1/me', { token })).body.usage;
  expect(usage).to.deep.equal({ jobs_charged: trials.length, credits_spent: charged - refunded, credits_refunded: refunded });
  const days = (
    await c.call('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}&days=1`, {
      headers: { 'x-link-secret': c.config.linkSecret },
    })
  ).body;
  expect(days).to.include({ credits_spent: charged - refunded, credits_refunded: refunded });
  expect(days.days[0]).to.include({ charged, refunded, credits: charged - refunded });

  const startsBefore = new Map(starts);
  const replays = await Promise.all(trials.map((trial) => submitPrompt(c, token, trial.key, { key: trial.key })));
  trials.forEach((trial, i) => {
    expect(replays[i].headers.get('idempotent-replayed'), trial.id).to.equal('true');
    expect(replays[i].body, trial.id).to.deep.equal(final.get(trial.id));
  });
  // The queue takes jobs in order: once a job submitted after the replays has run, any job a replay had put
  // back would have started too.
  const marker = await startTrial(c, token);
  await pollJob(c, token, marker.id, inStatus('succeeded'));
  starts.delete(marker.id);
  expect(starts, 'jobs started after their replays').to.deep.equal(startsBefore);
  const reread = await Promise.all(trials.map((trial) => c.call('GET', `/v1/jobs/${trial.id}`, { token })));
  trials.forEach((trial, i) => {
    expect(reread[i].body, trial.id).to.deep.equal(final.get(trial.id));
  });
  expect((await c.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
    jobs_charged: trials.length + 1,
    credits_spent: charged - refunded + marker.cost,
    credits_refunded: refunded,
  });
  if (prepaid) {
    const settled = [
      ...trials.map((trial) => ({ ...trial, refunded_credits: final.get(trial.id)!.refunded_credits as number })),
      { ...marker, refunded_credits: 0 },
    ];
    await expectHoldsSettled(prepaid.apis, c.config.linkSecret, subject, prepaid.granted, settled);
  }
  return { canceled, ran: trials.length - canceled };
}

/** A trial's job, accepted; its prompt is its key, so that its replay can be sent without remembering the body. */
async function startTrial(c: ConnectorUnderTest, token: string): Promise<Trial> {
  const key = newKey();
  const job = await acceptedJob(c, token, { input: { prompt: key }, key });
  return { id: job.id, key, cost: job.cost, answers: [] };
}

/** Registers the proof of a cancel racing the worker's pick-up, with connectors from `start`, under `label`. */
export function cancelRaceProof(label: string, start: StartConnector): void {
  describe(`a cancel racing the worker's pick-up [${label}]`, function () {
    this.timeout(120_000);
    const starts = new Map<string, number>();
    let c: ConnectorUnderTest;
    before(async () => {
      c = await start(RACE_ENV, { operations: recordingJobs(starts) });
    });
    after(async () => c?.close());

    it(`${TRIALS} jobs each canceled at a random moment while their backlog drains end canceled and refunded or ran and charged, never both, and the money adds up`, async () => {
      const subject = newSubject();
      const token = await c.link(subject);
      const trials = await Promise.all(
        Array.from({ length: TRIALS }, async () => {
          const trial = await startTrial(c, token);
          await jitter(cancelDelay());
          const res = await c.call('DELETE', `/v1/jobs/${trial.id}`, { token });
          trial.answers.push(res.status);
          expect([200, 202, 409], res.text).to.include(res.status);
          return trial;
        }),
      );
      const { canceled, ran } = await expectExactlyOnce(c, subject, token, trials, starts);
      expect(canceled + ran).to.equal(TRIALS);
    });
  });
}

/**
 * What a subject is granted in prepaid billing: exactly the price of the trials and of the marker job the
 * replays' check submits (a trial's prompt is a fresh key, all of one length).
 */
const fundingOfTrials = (count: number): number => (count + 1) * priceOf(paidOperationOf().price!, { prompt: newKey() });

/**
 * Registers the proof of cancels of the same jobs through two APIs at once, with the pair from `startPair`. In
 * prepaid billing the subject is granted exactly what its jobs cost, and once they are final every hold must be
 * settled: nothing held, the balance the grants less the captures on both APIs.
 */
export function twoApiCancelProof(label: string, startPair: StartPair, mode: BillingMode = 'metered'): void {
  const prepaid = mode === 'prepaid';
  describe(`cancels of the same jobs through two APIs at once, BILLING_MODE=${mode} [${label}]`, function () {
    this.timeout(120_000);
    const starts = new Map<string, number>();
    let first: ConnectorUnderTest;
    let second: ConnectorUnderTest;
    before(async () => {
      [first, second] = await startPair({ ...RACE_ENV, BILLING_MODE: mode }, { operations: recordingJobs(starts) });
    });
    after(async () => {
      await second?.close();
      await first?.close();
    });

    const holds = prepaid ? ', and no hold is left open' : '';
    it(`${TRIALS} jobs each canceled through both APIs at once are refunded at most once, and a 200 and a 409 never meet${holds}`, async () => {
      const subject = newSubject();
      const token = await first.link(subject);
      const granted = fundingOfTrials(TRIALS);
      if (prepaid) await grantCredits(second, second.config.linkSecret, subject, granted);
      const trials = await Promise.all(
        Array.from({ length: TRIALS }, async (_, i) => {
          const trial = await startTrial(i % 2 === 0 ? first : second, token);
          await jitter(cancelDelay());
          const answers = await Promise.all(
            [first, second].map((api) => api.call('DELETE', `/v1/jobs/${trial.id}`, { token }).then((res) => res.status)),
          );
          trial.answers.push(...answers);
          // Both saw the same job: canceled at once (200 twice), or running (202 and 202, or 202 then finished).
          expect(answers.includes(200) && answers.includes(409), `${trial.id}: ${answers}`).to.equal(false);
          return trial;
        }),
      );
      await expectExactlyOnce(first, subject, token, trials, starts, prepaid ? { apis: [first, second], granted } : undefined);
    });
  });
}
