import { createHmac, hash } from 'node:crypto';
import { canonicalJson } from '../../platform/util/canonical-json';
import type { DailyBudget } from '../ledger/daily-budget';
import type { Claim, ClaimHold, ClaimRequest } from '../ledger/ledger-store';
import type { JobIdKeySource } from './job-id-key';

/** A paid job asked for under an idempotency key. */
export interface KeyedSubmission {
  subject: string;
  operation: string;
  input: Record<string, unknown>;
  cost: number;
  idempotencyKey: string;
  /** The operation's own daily cap (`limits.dailyCredits`), counted by the same claim; absent: none. */
  operationDailyLimit?: number;
}

/** A claim's answer, with the job id the key names and the time this call accepted it at (the new job's `created_at`). */
export interface KeyClaim extends Claim {
  jobId: string;
  acceptedAt: string;
}

/**
 * The idempotency step of a paid job: a subject's key names one job id (an HMAC, the same on every replica and
 * across secret rotations), and the ledger's atomic claim, made from {@link Idempotency.requestFor} (the job
 * service sends it), records the key with the payload's fingerprint, charges and indexes the job, all or
 * nothing. A key used again with the same payload replays the job; with another payload it is a conflict; a new
 * job that would exceed the daily budget is refused by the same step.
 */
export class Idempotency {
  constructor(
    private readonly jobIdKey: JobIdKeySource,
    private readonly retentionSeconds: number,
    private readonly budget: DailyBudget,
  ) {}

  /**
   * The ledger's claim of the submission's key, whose job id is `jobId` ({@link Idempotency.jobIdFor}), accepted
   * now; `shard` is where a new job goes (the claim records it, so a replay finds the job there). With `hold`
   * (prepaid billing) the same step holds the price on the subject's credits.
   */
  requestFor(
    submission: KeyedSubmission,
    jobId: string,
    shard: number,
    hold: ClaimHold | undefined,
  ): ClaimRequest & { shard: number; acceptedAt: string } {
    return {
      subject: submission.subject,
      key: submission.idempotencyKey,
      fingerprint: fingerprint(submission.operation, submission.input),
      jobId,
      operation: submission.operation,
      cost: submission.cost,
      ttlSeconds: this.retentionSeconds,
      day: this.budget.today(),
      dailyLimit: this.budget.limit,
      ...(submission.operationDailyLimit === undefined ? {} : { operationLimit: submission.operationDailyLimit }),
      shard,
      acceptedAt: new Date().toISOString(),
      ...(hold ? { hold } : {}),
    };
  }

  /**
   * The job id for a subject's key: an HMAC, so it is stable across retries and replicas, unguessable by
   * anyone without the job-id key, and safe for BullMQ (no `:`, never an integer). The key is the stored
   * one, not the current secret's, so ids survive a `CONNECTOR_SECRET` rotation (see {@link JobIdKeySource}).
   */
  async jobIdFor(subject: string, idempotencyKey: string): Promise<string> {
    const mac = createHmac('sha256', await this.jobIdKey.current())
      .update(`${subject}\n${idempotencyKey}`, 'utf8')
      .digest('base64url');
    return `job_${mac.slice(0, 32)}`;
  }
}

/**
 * Fingerprint of what a key was first used for: the operation and its payload, key order ignored. One-shot
 * hash: the same SHA-256 of the UTF-8 text without a Hash object per request.
 */
export function fingerprint(operation: string, input: unknown): string {
  return hash('sha256', canonicalJson({ operation, input }), 'base64url');
}
