import type { DueHold, LedgerStore } from '../ledger/ledger-store';
import { repairMarkTime } from '../ledger/repair-mark';
import type { JobRecord } from './job';

/** How often a process sweeps: a quarter of the deadline, from a quarter second to half a minute. */
export function sweepIntervalMs(orphanSeconds: number): number {
  return Math.min(30_000, Math.max(250, orphanSeconds * 250));
}

/** How many due holds one pass of the sweep takes from the index at a time. */
const SWEEP_PAGE = 100;

/** What the sweep reports (metrics, logs). */
export interface HoldSweepHooks {
  /** A hold of `credits` was released because its job was never enqueued. */
  onOrphaned?(credits: number): void;
}

/** What the sweep needs: the ledger's open holds and releases, and a read of the job a hold is for. */
export interface HoldSweeperOptions {
  ledger: Pick<LedgerStore, 'dueHolds' | 'releaseOrphan' | 'forgetHold' | 'repairMarkOf'>;
  jobs: { get(id: string): Promise<JobRecord | undefined> };
  /** `HOLD_ORPHAN_SECONDS`: how long after its claim a hold without a job is released. */
  orphanSeconds: number;
  /** `IDEMPOTENCY_TTL_SECONDS`: settled hold records and refund records are kept twice this. */
  retentionSeconds: number;
  /** The clock (ms); `Date.now` by default. */
  now?: () => number;
  hooks?: HoldSweepHooks;
}

/**
 * The orphan sweep of prepaid holds: a hold whose job was never enqueued (the submit died, or answered 503,
 * between its claim and its enqueue) is released `HOLD_ORPHAN_SECONDS` after its claim, and its key's record
 * dropped, so a retry is a new submit. Any number of replicas may sweep at once: each release is one atomic
 * step of the ledger that moves money only for a hold still open for that acceptance. A retry that enqueues
 * such a job itself takes the hold's repair mark first; the sweep leaves a hold marked less than a deadline
 * ago, and releases only while the hold carries the mark it read before it looked for the job, so that the
 * two never both act on one hold (docs/decisions/repair-mark-fences-the-sweep.md).
 */
export class HoldSweeper {
  private readonly now: () => number;

  constructor(private readonly options: HoldSweeperOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Sweeps every `intervalMs` (unref'd: it never keeps the process alive) until the returned stop is called;
   * a pass that fails (Redis away) is reported to `onError` and the next one tries again.
   */
  start(intervalMs: number, onError: (error: unknown) => void): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.sweep()
        .catch(onError)
        .finally(() => {
          running = false;
        });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** One pass over the holds past their deadline; answers the credits it released. */
  async sweep(): Promise<number> {
    const before = this.now() - this.options.orphanSeconds * 1000;
    let released = 0;
    for (;;) {
      const due = await this.options.ledger.dueHolds(before, SWEEP_PAGE);
      for (const hold of due) released += await this.settle(hold, before);
      if (due.length < SWEEP_PAGE) return released;
    }
  }

  /**
   * A hold a retry marked since `before` is left for a later pass (its job is being enqueued); one whose job
   * exists is left to the job's ending; one whose job is not there is released, unless marked meanwhile. The
   * mark is read before the job: a retry that enqueued after this look marked after this read.
   */
  private async settle(hold: DueHold, before: number): Promise<number> {
    const repairMark = await this.options.ledger.repairMarkOf(hold);
    if (repairMark !== undefined && repairMarkTime(repairMark, this.now()) > before) return 0;
    const job = await this.options.jobs.get(hold.jobId);
    if (job && job.subject === hold.subject && job.created_at === hold.at) {
      await this.options.ledger.forgetHold(hold);
      return 0;
    }
    const { retentionSeconds } = this.options;
    const released = await this.options.ledger.releaseOrphan({
      ...hold,
      ttlSeconds: 2 * retentionSeconds,
      ...(repairMark === undefined ? {} : { repairMark }),
    });
    if (released > 0) this.options.hooks?.onOrphaned?.(released);
    return released;
  }
}
