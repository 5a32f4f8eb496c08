import { expect } from 'chai';
import { setTimeout as jitter } from 'node:timers/promises';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { waitFor } from '../../testkit/wait-for';
import { BACKENDS } from '../support/backends';
import { newKey, newSubject, startConnector, type ConnectorUnderTest } from '../support/harness';

/** How many jobs each proof races; every one must end canceled and refunded, or ran and charged. */
const TRIALS = 200;

// Jobs of 300 ms, eight at a time: a backlog of 200 drains in about 8 s, and each job's cancel comes at a
// random moment within the first 6 s, so that cancels land on queued jobs, on jobs a worker is just taking,
// on running ones (stopped, or finishing first) and on finished ones (a random delay spreads the race; it
// waits for nothing).
const RACE_ENV = { WORKER_CONCURRENCY: '8', PLACEHOLDER_JOB_MS: '300' };
const cancelDelay = () => Math.floor(Math.random() * 6000);

/** The registry with createJob's processor noting every job id it starts, so a test sees what really ran. */
function recordingJobs(started: Set<string>): Operation[] {
  return OPERATIONS.map((operation) =>
    operation.operationId === 'createJob'
      ? {
          ...operation,
          job: {
            operationId: operation.operationId,
            processor: (settings, own) => {
              const normal = operation.job!.processor(settings, own);
              return async (input, context) => {
                started.add(context.jobId);
                return normal(input, context);
              };
            },
          },
        }
      : operation,
  );
}

interface Trial {
  id: string;
  key: string;
  cost: number;
  answers: number[];
}

/** Waits until every job is final and returns them by id. */
async function finalJobs(c: ConnectorUnderTest, token: string, trials: Trial[]): Promise<Map<string, Record<string, any>>> {
  const final = new Map<string, Record<string, any>>();
  await waitFor(
    async () => {
      for (const trial of trials.filter((t) => !final.has(t.id))) {
        const job = (await c.call('GET', `/v1/jobs/${trial.id}`, { token })).body;
        if (['succeeded', 'failed', 'canceled'].includes(job.status)) final.set(trial.id, job);
      }
      return final.size === trials.length;
    },
    { what: 'every raced job to be final', timeoutMs: 60_000 },
  );
  return final;
}

/**
 * The checks every proof shares: each job ended canceled and refunded (and, when a cancel answered 200, never
 * started) or ran and succeeded charged, never both; the subject's totals and its day are net of exactly those
 * refunds; a replay of each key returns its job as it ended, uncharged.
 */
async function expectExactlyOnce(
  c: ConnectorUnderTest,
  subject: string,
  token: string,
  trials: Trial[],
  started: Set<string>,
): Promise<{ canceled: number; ran: number }> {
  const final = await finalJobs(c, token, trials);
  let charged = 0;
  let refunded = 0;
  let canceled = 0;
  for (const trial of trials) {
    const job = final.get(trial.id)!;
    charged += trial.cost;
    if (job.status === 'canceled') {
      canceled++;
      refunded += trial.cost;
      expect(job, trial.id).to.include({ refunded_credits: trial.cost, result: null });
      expect(job.cancel_requested_at, trial.id).to.be.a('string');
      if (trial.answers.includes(200) && !trial.answers.includes(202)) {
        expect(started.has(trial.id), `${trial.id} was canceled while queued but started`).to.equal(false);
        expect(job, trial.id).to.include({ started_at: null, attempts: 0 });
      }
    } else {
      expect(job, trial.id).to.include({ status: 'succeeded', refunded_credits: 0 });
      expect(started.has(trial.id), `${trial.id} succeeded without running`).to.equal(true);
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
  for (const trial of trials) {
    const replay = await c.call('POST', '/v1/jobs', {
      token,
      body: { input: { prompt: trial.key } },
      headers: { 'idempotency-key': trial.key },
    });
    expect(replay.body, trial.id).to.deep.equal(final.get(trial.id));
  }
  expect((await c.call('GET', '/v1/me', { token })).body.usage.jobs_charged).to.equal(trials.length);
  return { canceled, ran: trials.length - canceled };
}

/** Submits a job; its prompt is its key, so that its replay can be sent without remembering the body. */
async function submit(c: ConnectorUnderTest, token: string): Promise<Trial> {
  const key = newKey();
  const res = await c.call('POST', '/v1/jobs', { token, body: { input: { prompt: key } }, headers: { 'idempotency-key': key } });
  expect(res.status, res.text).to.equal(202);
  return { id: res.body.id, key, cost: res.body.cost, answers: [] };
}

for (const backend of BACKENDS) {
  describe(`a cancel racing the worker's pick-up [${backend}]`, function () {
    this.timeout(120_000);
    const started = new Set<string>();
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, RACE_ENV, { operations: recordingJobs(started) });
    });
    after(async () => c?.close());

    it(`${TRIALS} jobs each canceled at a random moment while their backlog drains end canceled and refunded or ran and charged, never both, and the money adds up`, async () => {
      const subject = newSubject();
      const token = await c.link(subject);
      const trials = await Promise.all(Array.from({ length: TRIALS }, () => submit(c, token)));
      await Promise.all(
        trials.map(async (trial) => {
          await jitter(cancelDelay());
          const res = await c.call('DELETE', `/v1/jobs/${trial.id}`, { token });
          trial.answers.push(res.status);
          expect([200, 202, 409], res.text).to.include(res.status);
        }),
      );
      const { canceled, ran } = await expectExactlyOnce(c, subject, token, trials, started);
      expect(canceled + ran).to.equal(TRIALS);
    });
  });
}

describe('cancels of the same jobs through two APIs at once [redis]', function () {
  this.timeout(120_000);
  const started = new Set<string>();
  let first: ConnectorUnderTest;
  let second: ConnectorUnderTest;
  before(async () => {
    first = await startConnector('redis', RACE_ENV, { operations: recordingJobs(started) });
    const shared = { REDIS_URL: connectionUrl(first.config.redis)!, REDIS_KEY_PREFIX: first.config.redisKeyPrefix };
    second = await startConnector('redis', { ...RACE_ENV, ...shared }, { operations: recordingJobs(started) });
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  it(`${TRIALS} jobs each canceled through both APIs at once are refunded at most once, and a 200 and a 409 never meet`, async () => {
    const subject = newSubject();
    const token = await first.link(subject);
    const trials = await Promise.all(Array.from({ length: TRIALS }, (_, i) => submit(i % 2 === 0 ? first : second, token)));
    await Promise.all(
      trials.map(async (trial) => {
        await jitter(cancelDelay());
        const answers = await Promise.all(
          [first, second].map((api) => api.call('DELETE', `/v1/jobs/${trial.id}`, { token }).then((res) => res.status)),
        );
        trial.answers.push(...answers);
        // Both saw the same job: canceled at once (200 twice), or running (202 and 202, or 202 then finished).
        expect(answers.includes(200) && answers.includes(409), `${trial.id}: ${answers}`).to.equal(false);
      }),
    );
    await expectExactlyOnce(first, subject, token, trials, started);
  });
});
