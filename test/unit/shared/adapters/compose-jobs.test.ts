import { expect } from 'chai';
import pino from 'pino';
import {
  composeBullmqJobQueue,
  composeLifecycle,
  composeMemoryJobQueue,
  jobServiceOn,
  type LifecycleConfig,
  settleOn,
} from '../../../../shared/adapters/compose-jobs';
import { MemoryJobIdKeyStore } from '../../../../shared/adapters/memory/memory-job-id-key-store';
import { MemoryLedgerStore } from '../../../../shared/adapters/memory/memory-ledger-store';
import type { RedisClient } from '../../../../shared/adapters/redis/redis-client';
import { RedisGuard } from '../../../../shared/adapters/redis/redis-guard';
import { RedisKeys } from '../../../../shared/adapters/redis/redis-keys';
import type { CaptureRequest } from '../../../../shared/domain/credits/credit-store';
import { queuedRecord } from '../../../../shared/domain/jobs/job';
import { JobError } from '../../../../shared/domain/jobs/job-error';
import { StoredJobIdKey } from '../../../../shared/domain/jobs/job-id-key';
import { endOfRecord, type JobEvents, NO_JOB_EVENTS } from '../../../../shared/domain/jobs/job-lifecycle';
import type { PrepaidPorts } from '../../../../shared/domain/jobs/job-settlement';
import { DEFAULT_CANCEL_CHARGE, type JobPolicy } from '../../../../shared/domain/jobs/processor';
import type { RefundRequest } from '../../../../shared/domain/ledger/ledger-store';
import { deriveKeys } from '../../../../shared/platform/secrets/derived-keys';
import { waitFor } from '../../../testkit/wait-for';

const CONFIG = { idempotencyTtlSeconds: 60, workerConcurrency: 1, jobAttempts: 1, jobBackoffMs: 0 };
const NEW_JOB = { id: 'job_1', subject: 's', operation: 'op', input: {}, cost: 5, createdAt: new Date().toISOString() };

/** Settlement ports that write down each capture and refund they are asked for. */
function recordingSettle() {
  const calls: string[] = [];
  const settle: PrepaidPorts = {
    capture: (request: CaptureRequest) => {
      calls.push(`capture ${request.credits}`);
      return { outcome: 'settled', captured: request.credits, released: 5 - request.credits, account: { balance: 0, held: 0 } };
    },
    refund: (request: RefundRequest) => {
      calls.push(`refund ${request.credits}`);
      return true;
    },
  };
  return { calls, settle };
}

const policy = (extra: Partial<JobPolicy>): JobPolicy => ({
  attempts: 1,
  backoffMs: 0,
  timeoutMs: undefined,
  refundOnFailure: true,
  cancelCharge: DEFAULT_CANCEL_CHARGE,
  ...extra,
});

describe('the jobs composition root', () => {
  describe('composeLifecycle', () => {
    it('metered billing (no billing mode): a failed job is refunded through the ledger port, nothing captured', async () => {
      const { calls, settle } = recordingSettle();
      const lifecycle = composeLifecycle({ config: CONFIG, settle, events: NO_JOB_EVENTS });
      await lifecycle.end(endOfRecord(queuedRecord(NEW_JOB), { kind: 'failed', message: 'no' }), { markEnded: () => undefined });
      expect(calls).to.deep.equal(['refund 5']);
    });

    it('prepaid billing: an ending captures through the credit port first', async () => {
      const { calls, settle } = recordingSettle();
      const config = { ...CONFIG, billing: { mode: 'prepaid' } as LifecycleConfig['billing'] };
      const lifecycle = composeLifecycle({ config, settle, events: NO_JOB_EVENTS });
      await lifecycle.end(endOfRecord(queuedRecord(NEW_JOB), { kind: 'succeeded', result: {} }), { markEnded: () => undefined });
      expect(calls[0]).to.equal('capture 5');
    });

    it('an operation whose policy keeps failed charges: its failure refunds nothing (terms come from the policies)', async () => {
      const { calls, settle } = recordingSettle();
      const policies = new Map([['op', policy({ refundOnFailure: false })]]);
      const lifecycle = composeLifecycle({ config: CONFIG, settle, events: NO_JOB_EVENTS, policies });
      await lifecycle.end(endOfRecord(queuedRecord(NEW_JOB), { kind: 'failed', message: 'no' }), { markEnded: () => undefined });
      expect(calls).to.deep.equal([]);
    });

    it('events and afterJobEvent: the outcome is recorded, then the hook runs, then the job is marked', async () => {
      const steps: string[] = [];
      const events: JobEvents = { enabled: true, record: (outcome) => void steps.push(`event ${outcome}`) };
      const lifecycle = composeLifecycle({
        config: CONFIG,
        settle: recordingSettle().settle,
        events,
        afterJobEvent: () => steps.push('after event'),
      });
      await lifecycle.end(endOfRecord(queuedRecord(NEW_JOB), { kind: 'canceled' }), { markEnded: () => void steps.push('marked') });
      expect(steps).to.deep.equal(['event canceled', 'after event', 'marked']);
    });
  });

  describe('composeMemoryJobQueue', () => {
    it('runs a job through its processors and settles it through the given ports in the step that ends it', async () => {
      const { calls, settle } = recordingSettle();
      const queue = composeMemoryJobQueue({
        config: CONFIG,
        settle,
        events: NO_JOB_EVENTS,
        processors: new Map([
          [
            'op',
            async () => {
              throw new JobError('Not possible.');
            },
          ],
        ]),
      });
      await queue.enqueue(NEW_JOB);
      const job = await waitFor(async () => {
        const stored = await queue.get(NEW_JOB.id);
        return stored?.status === 'failed' ? stored : undefined;
      });
      expect(job.refunded_credits).to.equal(5);
      expect(calls).to.deep.equal(['refund 5']);
      await queue.close(1000);
    });

    it('an operation with its own attempts: the queue retries by the policy it was given', async () => {
      let runs = 0;
      const queue = composeMemoryJobQueue({
        config: CONFIG,
        settle: recordingSettle().settle,
        events: NO_JOB_EVENTS,
        policies: new Map([['op', policy({ attempts: 3 })]]),
        processors: new Map([
          [
            'op',
            async () => {
              runs++;
              throw new Error('flaky');
            },
          ],
        ]),
      });
      await queue.enqueue(NEW_JOB);
      await waitFor(async () => (await queue.get(NEW_JOB.id))?.status === 'failed');
      expect(runs).to.equal(3);
      await queue.close(1000);
    });
  });

  describe('composeBullmqJobQueue', () => {
    const session = () => ({
      client: { status: 'end', defineCommand: () => undefined } as unknown as RedisClient,
      keys: new RedisKeys('test:'),
      guard: new RedisGuard(100),
    });
    const config = { jobAttempts: 1, jobBackoffMs: 0, idempotencyTtlSeconds: 60, jobQueueShards: 4 };

    it('spreads jobs over the configured shards', () => {
      const queue = composeBullmqJobQueue(session(), { config, logger: pino({ level: 'silent' }) });
      const shards = new Set(Array.from({ length: 64 }, (_, i) => queue.shardFor(`job_${i}`)));
      expect([...shards].sort()).to.deep.equal([0, 1, 2, 3]);
    });

    it('without REDIS_MIN_REPLICAS (a reader such as the webhook worker): durability is confirmed without asking Redis', async () => {
      const queue = composeBullmqJobQueue(session(), { config, logger: pino({ level: 'silent' }) });
      expect(await queue.confirmDurable('s', 0)).to.equal(undefined);
    });

    it('with REDIS_MIN_REPLICAS: durability is asked of Redis (here unreachable: a 503)', async () => {
      const queue = composeBullmqJobQueue(session(), {
        config: { ...config, redisMinReplicas: 1, redisWaitMs: 10 },
        logger: pino({ level: 'silent' }),
      });
      const error = await queue.confirmDurable('s', 0).then(
        () => undefined,
        (thrown: unknown) => thrown as { status?: number },
      );
      expect(error?.status).to.equal(503);
    });
  });

  describe('settleOn', () => {
    it('captures through the credit store and refunds through the ledger it is given', async () => {
      const calls: string[] = [];
      const settle = settleOn({
        credits: {
          capture: async (request) => {
            calls.push(`capture ${request.jobId}`);
            return { outcome: 'none', account: { balance: 0, held: 0 } };
          },
        },
        ledger: {
          refund: async (request) => {
            calls.push(`refund ${request.jobId}`);
            return true;
          },
        },
      });
      const capture = { subject: 's', jobId: 'job_1', credits: 0, ttlSeconds: 1 };
      expect(await settle.capture(capture)).to.deep.equal({ outcome: 'none', account: { balance: 0, held: 0 } });
      expect(await settle.refund({ ...capture, chargedAt: '', day: '' })).to.equal(true);
      expect(calls).to.deep.equal(['capture job_1', 'refund job_1']);
    });
  });

  describe('jobServiceOn', () => {
    it('makes a job service on the side’s ledger and queue: a cancel of a queued job is settled by the side’s lifecycle', async () => {
      const ledger = new MemoryLedgerStore();
      const { calls, settle } = recordingSettle();
      // One slot, taken by a job that never ends: the second job stays queued.
      const queue = composeMemoryJobQueue({
        config: CONFIG,
        settle,
        events: NO_JOB_EVENTS,
        processors: new Map([['op', () => new Promise(() => undefined)]]),
      });
      const service = jobServiceOn({ ledger, queue, lifecycle: queue.lifecycle, retentionSeconds: 60 })({
        jobIdKey: new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys('s'.repeat(32)).jobIdKey),
      });
      await service.submit({ subject: 's', operation: 'op', input: {}, cost: 5, idempotencyKey: 'runs' });
      const { job } = await service.submit({ subject: 's', operation: 'op', input: {}, cost: 5, idempotencyKey: 'waits' });
      const canceled = await service.cancel('s', job.id);
      expect(canceled.running).to.equal(false);
      expect(canceled.job.status).to.equal('canceled');
      expect(calls).to.include('refund 5');
      await queue.close(0);
    });
  });
});
