import { andThen, type Step } from '../../platform/util/step';
import type { CaptureRequest, SettleResult } from '../credits/credit-store';
import type { RefundRequest } from '../ledger/ledger-store';
import type { JobRecord } from './job';
import { type CancelCharge, DEFAULT_CANCEL_CHARGE, type JobPolicy } from './processor';

/** How a job ends: decided before any money moves. */
export type Ending = { kind: 'succeeded'; result: Record<string, unknown> } | { kind: 'failed'; message: string } | { kind: 'canceled' };

/** The job whose charge an ending settles: whose it is, what it cost and when it was charged. */
export type ChargedJob = Pick<JobRecord, 'id' | 'subject' | 'operation' | 'cost' | 'created_at'>;

/**
 * How an ending settles the job's charge: the credits kept (`capture`) and the credits given back
 * (`release`), with the reason of a release. In metered billing the charge was taken when the job was
 * accepted and a release refunds it; in prepaid billing the price was held, and the capture and release end
 * the hold. A cancel after the start may split the two (its operation's `cancelCharge`).
 */
export interface Settlement {
  capture: number;
  release: number;
  reason?: 'failed' | 'canceled';
}

/** What an operation's declaration says about settling its jobs' charges. */
export type SettlementTerms = Pick<JobPolicy, 'refundOnFailure' | 'cancelCharge'>;

/** The terms of an operation without a declaration of its own: failures are refunded, a late cancel pays the work done. */
export const DEFAULT_TERMS: SettlementTerms = { refundOnFailure: true, cancelCharge: DEFAULT_CANCEL_CHARGE };

/** How far a job had got when it ended: whether it ever started, and its last reported percent (none: 0). */
export interface WorkDone {
  started: boolean;
  percent: number;
}

/** A job that never started. */
export const NOT_STARTED: WorkDone = { started: false, percent: 0 };

/**
 * The settlement of an ending: a success keeps the charge; a failure gives it back unless its operation
 * keeps failed charges; a cancel before the start gives it back; a cancel after it keeps what the operation's
 * `cancelCharge` says ({@link cancelKeeps}) and gives back the rest.
 */
export function settlementOf(
  job: Pick<ChargedJob, 'cost'>,
  ending: Ending,
  terms: SettlementTerms,
  done: WorkDone = NOT_STARTED,
): Settlement {
  const cost = Math.max(0, job.cost);
  if (ending.kind === 'canceled') {
    const capture = done.started ? cancelKeeps(cost, terms.cancelCharge ?? DEFAULT_CANCEL_CHARGE, done.percent) : 0;
    return { capture, release: cost - capture, reason: 'canceled' };
  }
  if (ending.kind === 'failed' && terms.refundOnFailure) return { capture: 0, release: cost, reason: 'failed' };
  return { capture: cost, release: 0 };
}

/**
 * What a cancel after the start keeps of `cost`: nothing, all, or the share of the last reported percent,
 * rounded up to a whole credit (a percent outside 0..100 is clamped).
 */
export function cancelKeeps(cost: number, charge: CancelCharge, percent: number): number {
  if (charge === 'none') return 0;
  if (charge === 'full') return cost;
  const share = Math.min(100, Math.max(0, Number.isFinite(percent) ? percent : 0));
  return Math.min(cost, Math.ceil((cost * share) / 100));
}

/**
 * What settling moved: `released` is what the job shows given back; `made` whether this call moved it (a
 * settlement run again, after an interruption, finds it moved, and must not count it again).
 */
export interface Settled {
  released: number;
  made: boolean;
  /** In prepaid billing, when a hold was ended: what it captured (its release is `released`). */
  hold?: { captured: number };
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
    settle(job, { release, reason }) {
      // A cancel that keeps the whole price still records its refund (of 0): a later settlement of the same job
      // by a cancel repeated on another replica, which sees it canceled and gives back all, must find it made.
      if (release <= 0 && reason !== 'canceled') return NOTHING_SETTLED;
      return andThen(refund(refundOf(job, retentionSeconds, release)), (made) => ({ released: release, made }));
    },
  };
}

/** The steps prepaid billing settles with: the credit store's capture, and the ledger's refund. */
export interface PrepaidPorts {
  /** Ends the job's hold keeping `credits`, once per job (a release is a capture of 0). */
  capture(request: CaptureRequest): Step<SettleResult>;
  refund(request: RefundRequest): Step<boolean>;
}

/**
 * Prepaid billing: the price was held at accept, so the hold is ended, keeping the capture and giving the
 * rest back to the balance (one step of the credit store, once per job); the ledger's usage, which counted the
 * price as charged at accept, is then refunded what went back, so the usage and the daily cap read the same
 * in both modes. A job with no hold (accepted in metered billing, before a switch) is settled as metered. A
 * settlement run again finds the hold settled (`made` false) and repeats the once-per-job refund harmlessly,
 * which repairs one an interruption lost.
 */
export function prepaidMoney(ports: PrepaidPorts, retentionSeconds: number): JobMoney {
  const metered = meteredMoney(ports.refund, retentionSeconds);
  return {
    settle(job, settlement) {
      const ttlSeconds = 2 * retentionSeconds;
      const ended = ports.capture({ subject: job.subject, jobId: job.id, credits: settlement.capture, ttlSeconds });
      return andThen(ended, (result) => {
        if (result.outcome === 'none') return metered.settle(job, settlement);
        const { captured, released } = result;
        const settled: Settled = { released, made: result.outcome === 'settled', hold: { captured } };
        if (released <= 0) return settled;
        return andThen(ports.refund(refundOf(job, retentionSeconds, released)), () => settled);
      });
    },
  };
}

/** The money of a billing mode: `prepaid` ends holds, `metered` refunds charges. */
export function billingMoney(prepaid: boolean, ports: PrepaidPorts, retentionSeconds: number): JobMoney {
  return prepaid ? prepaidMoney(ports, retentionSeconds) : meteredMoney(ports.refund, retentionSeconds);
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
