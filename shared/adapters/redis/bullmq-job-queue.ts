import { type JobsOptions, Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { JobRecord, JobStatus, NewJob } from '../../domain/jobs/job';
import type { CancelOutcome, EnqueueOptions, JobQueue } from '../../domain/jobs/job-queue';
import type { JobPolicies } from '../../domain/jobs/processor';
import { withinGrace } from '../../platform/lifecycle/within-grace';
import { addToQueue, queueTelemetry } from '../../platform/tracing/queue-telemetry';
import {
  type BullJobData,
  CANCEL_REQUESTED_FIELD,
  CANCELED_FIELD,
  CANCELED_SET,
  READ_JOB_CONSTANTS,
  type ReadJobReply,
  recordOfReadJob,
  toBullJobData,
  toJobRecord,
} from './bullmq-job-record';
import { isConnectionError } from './connection-error';
import { JobShardHistory, shardOf } from './job-shards';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { type ReplicaWaitOptions, waitForReplicas } from './replica-wait';

/** How jobs are retried and how long finished ones are kept. */
export interface BullmqJobQueueOptions {
  attempts: number;
  backoffMs: number;
  /** Each operation's own attempts and back-off, overriding the two above for its jobs. */
  policies?: JobPolicies;
  /** Finished jobs are kept at least this long: the idempotency retention, so a replay finds its job. */
  retentionSeconds: number;
  logger: Logger;
  /** Queues the jobs are spread over (`JOB_QUEUE_SHARDS`). */
  shards: number;
  /** Replicas that must hold a new job and its charge before it is acknowledged. */
  durability: ReplicaWaitOptions;
}

type BullQueue = Queue<BullJobData, Record<string, unknown>, string>;

/**
 * The producer side of the BullMQ queues, as the API uses it: it adds and reads jobs, and never runs them
 * (the worker process does). Job ids are the connector's own (`job_…`, derived from subject and key), so
 * BullMQ itself refuses a second job for the same key on its shard, and the claim records which shard that
 * is, so a retry goes there whatever the shard count is by then.
 */
export class BullmqJobQueue implements JobQueue {
  private readonly queues = new Map<number, BullQueue>();
  private readonly opening = new Map<number, Promise<BullQueue>>();
  private historyLoad?: Promise<unknown>;
  /** Set once the shard history's first load succeeded. */
  private historyLoaded = false;
  private closed = false;
  private readonly jobOptions: JobsOptions;
  /** The options of jobs whose operation has a policy of its own, made once. */
  private readonly operationOptions = new Map<string, JobsOptions>();
  private readonly readJob: LuaScript<ReadJobReply>;
  private readonly cancelJob: LuaScript<CancelOutcome | 'unknown'>;
  private readonly countCanceled: LuaScript<number>;
  private readonly history: JobShardHistory;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
    private readonly options: BullmqJobQueueOptions,
  ) {
    this.jobOptions = {
      attempts: options.attempts,
      backoff: { type: 'exponential', delay: options.backoffMs },
      removeOnComplete: { age: options.retentionSeconds },
      removeOnFail: { age: options.retentionSeconds },
    };
    for (const [operation, policy] of options.policies ?? []) {
      this.operationOptions.set(operation, {
        ...this.jobOptions,
        attempts: policy.attempts,
        backoff: { type: 'exponential', delay: policy.backoffMs },
      });
    }
    this.readJob = defineLuaScript(client, 'bullmq-job-queue/read-job', READ_JOB_CONSTANTS);
    this.cancelJob = defineLuaScript(client, 'bullmq-job-queue/cancel-job', { CANCEL_REQUESTED_FIELD, CANCELED_FIELD });
    this.countCanceled = defineLuaScript(client, 'bullmq-job-queue/count-canceled');
    this.history = new JobShardHistory(client, keys, options.shards);
  }

  shardFor(jobId: string): number {
    return shardOf(jobId, this.options.shards);
  }

  /**
   * Adds the job to its shard. When a job with this id exists BullMQ keeps the stored one and resolves to an
   * object holding *our* data, not the stored data, and its script answers both cases alike. A job known to
   * be `absent` (no job held the id after its claim) is therefore the one stored: the only other `add` of the
   * id is a replay of the same claim enqueueing the same job. Otherwise the stored hash's timestamp and data
   * are read back (one HMGET): only when they are the ones just sent did this call store the job, and then it
   * is returned as queued, which it was when `add` answered. Failing that, a finished job is replaced when
   * asked (checking the state only then, the rare case of an expired key whose job is still kept), and
   * undefined tells the caller to read the stored job.
   */
  async enqueue(
    job: NewJob,
    { replaceFinished = false, shard = this.shardFor(job.id), absent = false }: EnqueueOptions = {},
  ): Promise<JobRecord | undefined> {
    // Once the shard count is recorded and the shard's queue is open, an add is only commands on the request
    // client, each bounded by its own deadline: no race and timer of the guard's (bench/README.md).
    const open = this.historyLoaded ? this.queues.get(shard) : undefined;
    if (open) return this.guard.commands(() => this.addTo(open, job, replaceFinished, absent));
    return this.guard.run(async () => {
      // This process's shard count is recorded before its first job goes anywhere, so that readers with
      // another count know where to look for it.
      if (!this.historyLoad) await this.loadHistory();
      return this.addTo(await this.open(shard), job, replaceFinished, absent);
    });
  }

  /** {@link BullmqJobQueue.enqueue} on an open queue. */
  private async addTo(queue: BullQueue, job: NewJob, replaceFinished: boolean, absent: boolean): Promise<JobRecord | undefined> {
    const data = toBullJobData(job);
    const jobOptions = this.operationOptions.get(job.operation) ?? this.jobOptions;
    const added = await addToQueue(queue, job.operation, data, { ...jobOptions, jobId: job.id });
    if (absent) return toJobRecord(added, 'waiting');
    const [timestamp, storedData] = await this.client.hmget(queue.toKey(job.id), 'timestamp', 'data');
    if (timestamp === String(added.timestamp) && storedData === JSON.stringify(data)) return toJobRecord(added, 'waiting');
    if (!replaceFinished) return undefined;
    const state = await queue.getJobState(job.id);
    // Only a finished job is replaced; a queued or running one is never touched.
    if (state === 'completed' || state === 'failed') {
      await queue.remove(job.id);
      // The id may have been a canceled job's: the new job is not canceled.
      await this.client.zrem(queue.toKey(CANCELED_SET), job.id);
      await addToQueue(queue, job.operation, data, { ...jobOptions, jobId: job.id });
    }
    return undefined;
  }

  /**
   * The job on `shard`, or, with no shard given, on the shard each recorded shard count puts it (the current
   * count's first; after a miss the counts are re-read, in case another replica started with a new count).
   */
  get(id: string, shard?: number): Promise<JobRecord | undefined> {
    return shard === undefined ? this.find(id) : this.readOn(id, shard);
  }

  /** {@link BullmqJobQueue.get} without a shard: each recorded shard count's shard in turn. */
  private async find(id: string): Promise<JobRecord | undefined> {
    if (!this.historyLoad) await this.loadHistory();
    for (const candidate of this.history.candidates(id)) {
      const found = await this.readOn(id, candidate);
      if (found) return found;
    }
    if (!(await this.guard.commands(() => this.history.refreshAfterMiss()))) return undefined;
    for (const candidate of this.history.candidates(id)) {
      const found = await this.readOn(id, candidate);
      if (found) return found;
    }
    return undefined;
  }

  async cancel(id: string): Promise<{ outcome: CancelOutcome; job: JobRecord } | undefined> {
    if (!this.historyLoad) await this.loadHistory();
    for (const shard of this.history.candidates(id)) {
      const queue = this.queues.get(shard) ?? (await this.guard.run(() => this.open(shard)));
      const keys = ['', 'wait', 'paused', 'delayed', 'prioritized', 'completed', 'failed', 'active'].map((suffix) =>
        queue.toKey(suffix || id),
      );
      keys.push(`${queue.toKey(id)}:lock`, queue.toKey(CANCELED_SET));
      const outcome = await this.guard.commands(() => this.cancelJob(keys, [id, Date.now()]));
      if (outcome === 'unknown') continue;
      const job = await this.readOn(id, shard);
      return job ? { outcome, job } : undefined;
    }
    return undefined;
  }

  async confirmDurable(subject: string, shard: number): Promise<void> {
    if (this.options.durability.minReplicas <= 0) return;
    const queue = await this.guard.run(() => this.open(shard));
    await waitForReplicas(this.client, [this.keys.subjectUsage(subject), queue.toKey('id')], this.options.durability);
  }

  async counts(): Promise<Record<JobStatus, number>> {
    await this.loadHistory();
    const oldest = Date.now() - this.options.retentionSeconds * 1000;
    const perShard = await Promise.all(
      Array.from({ length: this.history.span }, (_, shard) =>
        this.guard.run(async () => {
          const queue = await this.open(shard);
          const [counts, canceled] = await Promise.all([
            queue.getJobCounts('waiting', 'delayed', 'prioritized', 'waiting-children', 'active', 'completed', 'failed'),
            this.countCanceled([queue.toKey(CANCELED_SET), queue.toKey('failed')], [oldest, 1000]),
          ]);
          return { ...counts, canceled: Number(canceled) } as Record<string, number>;
        }),
      ),
    );
    const n = (state: string): number => perShard.reduce((sum, counts) => sum + Number(counts[state] ?? 0), 0);
    // BullMQ holds canceled jobs in its failed set: they are counted once, as canceled.
    return {
      queued: n('waiting') + n('delayed') + n('prioritized') + n('waiting-children'),
      running: n('active'),
      succeeded: n('completed'),
      failed: Math.max(0, n('failed') - n('canceled')),
      canceled: n('canceled'),
    };
  }

  /** The API runs no jobs, so there is nothing to drain: release the queues (the shared client stays open). */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    const queues = [...this.queues.values(), ...(await Promise.all([...this.opening.values()].map((p) => p.catch(() => undefined))))];
    const open = [...new Set(queues.filter((queue): queue is BullQueue => queue !== undefined))];
    await withinGrace(Promise.all(open.map((queue) => queue.close().catch(() => undefined))), graceMs);
  }

  private readOn(id: string, shard: number): Promise<JobRecord | undefined> {
    return this.onQueue(shard, (queue) => this.readFrom(queue, id));
  }

  private readFrom(queue: BullQueue, id: string): Promise<JobRecord | undefined> {
    return this.guard.commands(() => this.readJob(readKeysOf(queue, id), [id]).then((reply) => recordOfReadJob(id, reply)));
  }

  /**
   * The keys `includes/read-job.lua` reads for a job on a shard (the hash, the queue's completed and failed
   * sets, the lock), for a script that reads the job beside work of its own.
   */
  readKeys(id: string, shard: number): string[] | Promise<string[]> {
    return this.onQueue(shard, (queue) => readKeysOf(queue, id));
  }

  /**
   * `use` of the shard's queue: at once when it is open, else once it is. Opening a queue may wait inside
   * BullMQ, so it gets the guard's deadline; once open, what `use` sends is bounded by the client itself.
   */
  private onQueue<T>(shard: number, use: (queue: BullQueue) => T): T | Promise<Awaited<T>> {
    const queue = this.queues.get(shard);
    if (queue) return use(queue);
    // `then` flattens what `use` answers, as `await` would: a promise of its value, not of a promise.
    return this.guard.run(() => this.open(shard)).then(use) as Promise<Awaited<T>>;
  }

  /** Records this process's shard count and reads the others once; a failed read is tried again next time. */
  private async loadHistory(): Promise<void> {
    this.historyLoad ??= this.guard
      .commands(() => this.history.load())
      .then(() => {
        this.historyLoaded = true;
      })
      .catch((error: unknown) => {
        this.historyLoad = undefined;
        throw error;
      });
    await this.historyLoad;
  }

  /**
   * The BullMQ Queue of a shard, created on first use once the client is connected. A Queue created while
   * Redis is down waits for it inside BullMQ, where our fail-fast settings do not reach: a request would time
   * out and its `add` would still run minutes later when Redis returns. Opening only on a ready client keeps
   * every call fail-fast; a failed opening is dropped and tried again on the next call.
   */
  private open(shard: number): Promise<BullQueue> {
    const open = this.queues.get(shard);
    if (open) return Promise.resolve(open);
    if (this.closed) return Promise.reject(new Error('the job queue is closed'));
    if (this.client.status !== 'ready') return Promise.reject(new Error('redis is not connected'));
    let opening = this.opening.get(shard);
    if (!opening) {
      opening = (async () => {
        const queue: BullQueue = new Queue(this.keys.jobQueueName(shard), {
          connection: this.client,
          prefix: this.keys.bullPrefix,
          telemetry: queueTelemetry(),
        });
        // Without a listener an 'error' event would crash the process; the client's own listener already
        // counts and logs connection errors, so only other errors are logged here.
        queue.on('error', (error: Error) => {
          if (!isConnectionError(error)) this.options.logger.warn({ err: error }, 'job queue error');
        });
        try {
          await queue.waitUntilReady();
          this.queues.set(shard, queue);
          return queue;
        } catch (error) {
          await queue.close().catch(() => undefined);
          throw error;
        } finally {
          this.opening.delete(shard);
        }
      })();
      this.opening.set(shard, opening);
    }
    return opening;
  }
}

/** What `includes/read-job.lua` takes for a job of `queue`, in its order. */
function readKeysOf(queue: BullQueue, id: string): string[] {
  const jobKey = queue.toKey(id);
  return [jobKey, queue.toKey('completed'), queue.toKey('failed'), `${jobKey}:lock`];
}
