import type { PageQuery, SeqItem } from '../pagination/page';

/** A request to accept a paid job under an idempotency key. */
export interface ClaimRequest {
  subject: string;
  key: string;
  /** Hash of the operation and its payload; a replay must carry the same one. */
  fingerprint: string;
  jobId: string;
  operation: string;
  cost: number;
  ttlSeconds: number;
}

/** `created`: this call accepted and charged the job. `replayed`: an earlier call did. `conflict`: the key was used for another payload. */
export type ClaimOutcome = 'created' | 'replayed' | 'conflict';

/** What a subject has been charged. */
export interface Usage {
  jobs_charged: number;
  credits_spent: number;
}

/**
 * Idempotency records, charges and the per-subject job index. `claim` is the one atomic step that makes a
 * paid job happen at most once: record the key, charge, index the job, all or nothing.
 */
export interface LedgerStore {
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  /** Job ids of a subject, newest first. */
  listJobIds(subject: string, query: PageQuery): Promise<Array<SeqItem<string>>>;
  usage(subject: string): Promise<Usage>;
  /**
   * Drops from the subject's index those of `jobIds` whose idempotency record has expired: their jobs are
   * gone for good. An id whose record is still alive is kept, since its job may be about to be enqueued.
   */
  pruneJobs(subject: string, jobIds: readonly string[]): Promise<void>;
}
