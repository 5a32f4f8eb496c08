import { expect } from 'chai';
import * as z from 'zod';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { timeoutMessage } from '../../shared/domain/jobs/job-runner';
import { fixedPrice } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { loadConfig } from '../../shared/platform/config/config';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { createLogger } from '../../shared/platform/logging/logger';
import { type RunningWorker, startWorker } from '../../worker/start-worker';
import { withOperations } from '../support/extra-operations';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { LogCapture } from '../support/log-capture';

const TIMEOUT_MS = 300;
/** How many attempts ran, by job id: the processor counts them. */
const started = new Map<string, number>();

/**
 * A developer's own paid job, declared with settings unlike every global default: a short timeout, two
 * attempts with a short back-off, and failed charges kept. Its processor waits for its signal, so only the
 * timeout ends an attempt.
 */
const stubbornJob = paidJob({
  operationId: 'waitForever',
  input: z.strictObject({ note: z.string().max(20) }),
  timeoutMs: TIMEOUT_MS,
  attempts: 2,
  backoffMs: 50,
  refundOnFailure: false,
  processor:
    () =>
    async (_input, { jobId, signal }) => {
      started.set(jobId, (started.get(jobId) ?? 0) + 1);
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      return {};
    },
});

const waitForever = paidOperation({
  job: stubbornJob,
  path: '/v1/waits',
  summary: 'Wait until stopped (4 credits)',
  description: 'Waits until its timeout stops it. Costs 4 credits, charged once when accepted. Answers 202: poll getJob (get_job).',
  price: fixedPrice(4),
  noun: 'wait',
});

// The out-of-process path: an API that only enqueues (as `npm start` runs it) and the worker `npm run
// start:worker` runs (startWorker), given the developer's paid jobs as worker/main.ts gives it PAID_JOBS.
describe("a developer's own paid job run by a separate worker [redis]", () => {
  let api: ConnectorUnderTest;
  let worker: RunningWorker;
  const workerLogs = new LogCapture();

  before(async () => {
    // The global defaults differ from every one of the job's own settings.
    const globals = { JOB_ATTEMPTS: '5', JOB_BACKOFF_MS: '60000' };
    api = await startConnector('redis', globals, { runWorker: false, operations: withOperations(OPERATIONS, [waitForever]) });
    const config = loadConfig(
      { ...BASE_ENV, ...globals, REDIS_URL: connectionUrl(api.config.redis)!, REDIS_KEY_PREFIX: api.config.redisKeyPrefix },
      'worker',
    );
    worker = await startWorker(config, createLogger('info', 'connector-worker-test', workerLogs), { jobs: [stubbornJob] });
  });
  after(async () => {
    await worker?.close();
    await api?.close();
  });

  it('its timeout stops each attempt, its two attempts run with its back-off, and it ends failed with its charge kept', async () => {
    const token = await api.link(newSubject());
    const accepted = await api.call('POST', '/v1/waits', {
      token,
      body: { input: { note: 'x' } },
      headers: { 'idempotency-key': newKey() },
    });
    expect(accepted.status, accepted.text).to.equal(202);
    const ended = await pollJob(api, token, accepted.body.id, inStatus('failed'), 20_000);
    expect(ended).to.include({ attempts: 2, refunded_credits: 0, cost: 4 });
    expect(ended.error).to.deep.equal({ message: timeoutMessage(TIMEOUT_MS) });
    expect(started.get(accepted.body.id)).to.equal(2);
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 4, credits_refunded: 0 });
    // The retry after the first timeout and the failure are the only warnings.
    const warnings = workerLogs.lines.map((line) => JSON.parse(line)).filter((line) => line.level >= 40);
    expect(warnings.map((line) => line.msg)).to.deep.equal(['job attempt failed; retrying', 'job failed']);
  });
});
