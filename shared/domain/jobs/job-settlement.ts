import { andThen, type Step } from '../../platform/util/step';
import type { RefundRequest } from '../ledger/ledger-store';
import type { JobRecord } from './job';
import type { Ending } from './job-lifecycle';
import type { JobPolicy } from './processor';

/** The job whose charge an ending settles: whose it is, what it cost and when it was charged. */
export type ChargedJob = Pick<JobRecord, 'id' | 'subject' | 'operation' | 'cost' | 'created_at'>;

/**
 * How an ending settles the job's charge: the credits kept (`capture`) and the credits given back
 * (`release`), with the reason of a release. Today's charge is taken whole when the job is accepted, so an
 * ending captures all or releases all; the split leaves room for a partial release (a cancel charged by
 * progress) and for a hold captured on success.
 */
export interface Settlement {
  capture: number;
  release: number;
  reason?: 'failed' | 'canceled';
}

/** What an operation's declaration says about settling its jobs' charges. */
export type SettlementTerms = Pick<JobPolicy, 'refundOnFailure'>;

/** The terms of an operation without a declaration of its own: failures are refunded. */
export const DEFAULT_TERMS: SettlementTerms = { refundOnFailure: true };

/**
 * The settlement of an ending: a success keeps the charge; a failure gives it back unless its operation
 * keeps failed charges; a cancel gives it back.
 */
export function settlementOf(job: Pick<ChargedJob, 'cost'>, ending: Ending, terms: SettlementTerms): Settlement {
  const cost = Math.max(0, job.cost);
  if (ending.kind === 'canceled') return { capture: 0, release: cost, reason: 'canceled' };
  if (ending.kind === 'failed' && terms.refundOnFailure) return { capture: 0, release: cost, reason: 'failed' };
  return { capture: cost, release: 0 };
}

/**
 * What settling moved: `released` is what the job shows given back; `made` whether this call moved it (a
 * settlement run again, after an interruption, finds it moved, and must not count it again).
 */
export interface Settled {
  released: number;
  made: boolean;
}

/** Nothing moved: nothing was owed back, or nothing holds the money. */
export const NOTHING_SETTLED: Settled = { released: 0, made: false };

/**
 * Where a job's charge is settled. A settlement is made at most once per job, whatever the number of
 * callers, so that every ending may run again after an interruption.
 */
export interface JobMoney {
  settle(job: ChargedJob, settlement: Settlement): Step<Settled>;
}

/** Settles nothing: a queue built without a ledger (tests of its mechanics). */
export const NO_MONEY: JobMoney = { settle: () => NOTHING_SETTLED };

/**
 * Metered billing: the charge was taken when the job was accepted, so a capture keeps it as it is and a
 * release refunds it through the ledger's once-per-job refund (`refund`, which answers at once on the
 * embedded ledger, so that the queue's ending stays one synchronous step there).
 */
export function meteredMoney(refund: (request: RefundRequest) => Step<boolean>, retentionSeconds: number): JobMoney {
  return {
    settle(job, { release }) {
      if (release <= 0) return NOTHING_SETTLED;
      return andThen(refund(refundOf(job, retentionSeconds, release)), (made) => ({ released: release, made }));
    },
  };
}

/**
 * The refund of a job as the ledger records it: counted on the day of its charge, its record kept twice the
 * retention, so that it outlives the job it guards (finished jobs are removed lazily, after the retention).
 */
export function refundOf(job: ChargedJob, retentionSeconds: number, credits: number = job.cost): RefundRequest {
  return {
    subject: job.subject,
    jobId: job.id,
    credits,
    chargedAt: job.created_at,
    ttlSeconds: 2 * retentionSeconds,
    day: job.created_at.slice(0, 10),
  };
}
