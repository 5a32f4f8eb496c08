import { createHash } from 'node:crypto';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import type { X402Settings } from '../../platform/config/x402-settings';
import { GrantConflictError, PaymentFacilitatorUnavailableError, PaymentRequiredError } from '../../platform/errors/problems';
import { grantFingerprint } from '../credits/credit-rules';
import type { CreditEvents, CreditHooks } from '../credits/credit-service';
import type { CreditStore, GrantRequest } from '../credits/credit-store';
import type { ClaimGrant, JobFunding } from '../ledger/ledger-store';
import { authorizationProblem, chainIdOf, type ExactPayment, readExactPayment, signedByPayer } from './exact-payment';
import { x402Subject } from './x402-subject';
import { type PaidResource, paymentRequiredFor, requirementsFor } from './x402-terms';

/**
 * The facilitator, as the checkout needs it: a refusal is an answer (`isValid` or `success` false); a
 * facilitator that cannot be reached (down, timed out, answering nonsense) throws.
 */
export interface PaymentFacilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
}

/** The answer a submit gives when the payer's account cannot hold the price: then a payment is settled. */
export const SHORT = Symbol('short of credits');

/** One paid call: the decoded payment, the price of this input, the key, and the submit of the job for a subject. */
export interface PaidCall<T> {
  payment: PaymentPayload;
  credits: number;
  idempotencyKey: string;
  resource: PaidResource;
  /**
   * Accepts the job for the payer's account exactly as a funded prepaid submit; {@link SHORT} when it cannot
   * hold the price. With `funding`, the settled payment's grant is made by the job's claim, in its own step.
   */
  submit(subject: string, funding?: JobFunding): Promise<T | typeof SHORT>;
}

/** What a paid call came to: the submit's answer, the payer's account, and the settlement to send back. */
export interface PaidOutcome<T> {
  result: T;
  subject: string;
  /** The facilitator's settlement; for a call funded from the account (or a replay), one naming no transaction. */
  settlement: SettleResponse;
  /** Whether this call settled a payment (false: the account already held the price, or the key was accepted before). */
  settled: boolean;
}

/** What the checkout is built from. */
export interface CheckoutDeps {
  settings: X402Settings;
  facilitator: PaymentFacilitator;
  credits: CreditStore;
  events: CreditEvents;
  hooks?: CreditHooks & { onSettled?(credits: number): void; onRefused?(reason: string): void; onAccount?(): void };
  lowThreshold?: number;
  now?: () => number;
}

/**
 * x402 payments funding the ledger (docs/decisions/x402-funds-the-ledger.md). A call is first tried on the
 * payer's account: a replay of an accepted key, or an account that already holds the price (what a failed or
 * canceled job gave back), is answered without settling anything, the payment's signature being the payer's
 * proof. Otherwise the payment is verified and settled by the facilitator, then granted to the account (its id
 * the nonce) and the job held from it in one atomic step, the job's claim (docs/decisions/x402-grant-and-hold.md):
 * replayed, it grants nothing twice and answers the same job; refused, it still grants.
 */
export class X402Checkout {
  private readonly now: () => number;

  constructor(private readonly deps: CheckoutDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The requirements for a price, as the 402 and the facilitator name them. */
  requirements(credits: number): PaymentRequirements {
    return requirementsFor(this.deps.settings, credits);
  }

  /** The 402 of a paid call that carried no payment. */
  required(credits: number, resource: PaidResource): never {
    throw this.refusal(
      credits,
      resource,
      undefined,
      'This operation is paid: send an x402 payment for the amount in PAYMENT-REQUIRED, or a bearer token.',
    );
  }

  /** Pays for one call and submits its job: see the class. Throws 402 (refused, nothing held) or 503 (facilitator unreachable). */
  async pay<T>(call: PaidCall<T>): Promise<PaidOutcome<T>> {
    const wanted = this.requirements(call.credits);
    const payment = await this.proven(call, wanted);
    const subject = x402Subject(this.deps.settings.network, payment.payer);
    const grant = this.grantOf(subject, payment, call);
    const settledBefore = (await this.isOwnNonce(grant, call)) ? grant : await this.resolveUnanswered(subject, call);
    const repaired = settledBefore ? await this.fund(call, settledBefore) : SHORT;
    const fromAccount = repaired === SHORT ? await call.submit(subject) : repaired;
    if (fromAccount !== SHORT) {
      this.deps.hooks?.onAccount?.();
      return { result: fromAccount, subject, settlement: this.unsettled(payment), settled: false };
    }
    const settlement = await this.settle(payment, wanted, call, grant);
    if (settlement === 'replayed') {
      const again = await call.submit(subject);
      if (again !== SHORT) return { result: again, subject, settlement: this.unsettled(payment), settled: false };
      throw this.refusal(call.credits, call.resource, 'settle_failed', 'The payment could not be settled; nothing was charged.');
    }
    this.deps.hooks?.onSettled?.(call.credits);
    const result = await this.fund(call, grant);
    if (result === SHORT) {
      throw this.refusal(
        call.credits,
        call.resource,
        'spent_concurrently',
        'The payment was credited to the account, which could not hold the price; retry.',
      );
    }
    return { result, subject, settlement, settled: true };
  }

  /**
   * The grant-and-hold of a settled payment: the submit, whose claim grants it in its own step. Once the claim
   * has answered the grant stands, so its `credits.granted` event is recorded (when this step made it) and the
   * settling mark goes. A grant conflict means the nonce funded something else: 402 `nonce_used`.
   */
  private async fund<T>(call: PaidCall<T>, grant: GrantRequest): Promise<T | typeof SHORT> {
    const mark = markIdOf(grant.subject, call.idempotencyKey);
    const funding: JobFunding = {
      grant,
      credited: async (granted) => {
        if (granted) await this.announce(grant.subject, granted);
        await this.deps.credits.clearSettling(mark);
      },
    };
    try {
      return await call.submit(grant.subject, funding);
    } catch (error) {
      if (error instanceof GrantConflictError) throw this.nonceUsed(call);
      throw error;
    }
  }

  /** The payment, read and checked against what this call costs, with the payer's signature proven. */
  private async proven<T>(call: PaidCall<T>, wanted: PaymentRequirements): Promise<ExactPayment> {
    const payment = readExactPayment(call.payment);
    if (typeof payment === 'string') throw this.refusal(call.credits, call.resource, 'invalid_payload', `${payment}.`);
    const mismatch = acceptedMismatch(call.payment.accepted, wanted) ?? authorizationProblem(payment, wanted, this.now());
    if (mismatch) throw this.refusal(call.credits, call.resource, 'invalid_payment', `${mismatch}; nothing was charged.`);
    if (!(await signedByPayer(payment, wanted, chainIdOf(this.deps.settings.network)))) {
      this.deps.hooks?.onRefused?.('invalid_signature');
      throw this.refusal(
        call.credits,
        call.resource,
        'invalid_signature',
        'The payment signature is not the payer’s; nothing was charged.',
      );
    }
    return payment;
  }

  /** The grant a settled payment makes: its nonce is its id; the note ties it to this key, so only its retry may repair it. */
  private grantOf<T>(subject: string, payment: ExactPayment, call: PaidCall<T>): GrantRequest {
    const note = `x402 payment for key ${createHash('sha256').update(call.idempotencyKey).digest('base64url').slice(0, 22)}`;
    return {
      subject,
      grantId: payment.nonce,
      credits: call.credits,
      note,
      fingerprint: grantFingerprint(subject, call.credits, note),
      ...(this.deps.lowThreshold === undefined ? {} : { lowThreshold: this.deps.lowThreshold }),
    };
  }

  /**
   * A nonce already recorded is refused before anything is held, unless it is this very call's (same payer,
   * price and key): then true, and its grant-and-hold is run again (a no-op grant, or the repair of a step a
   * crash cut short).
   */
  private async isOwnNonce<T>(grant: GrantRequest, call: PaidCall<T>): Promise<boolean> {
    const known = await this.deps.credits.grantFingerprint(grant.grantId);
    if (known === undefined) return false;
    if (known !== grant.fingerprint) throw this.nonceUsed(call);
    return true;
  }

  private nonceUsed<T>(call: PaidCall<T>): Error {
    this.deps.hooks?.onRefused?.('nonce_used');
    return this.refusal(call.credits, call.resource, 'nonce_used', 'This payment was used before; sign a new one. Nothing was charged.');
  }

  /**
   * Verifies and settles; `replayed` when settling failed (maybe a concurrent call with the same payment settled
   * it). The mark stays after a settlement until its grant-and-hold has answered ({@link X402Checkout.fund}).
   */
  private async settle<T>(
    payment: ExactPayment,
    wanted: PaymentRequirements,
    call: PaidCall<T>,
    grant: GrantRequest,
  ): Promise<SettleResponse | 'replayed'> {
    const verified = await this.reach(() => this.deps.facilitator.verify(payment.payload, wanted));
    if (!verified.isValid) {
      const reason = verified.invalidReason ?? 'invalid_payment';
      this.deps.hooks?.onRefused?.(reason);
      throw this.refusal(call.credits, call.resource, reason, 'The facilitator refused the payment; nothing was charged.');
    }
    // Marked before settling: a process that dies (or loses the answer) after the chain moved leaves the mark,
    // which the next call with this key resolves (resolveUnanswered). The grant-and-hold clears it.
    const mark = markIdOf(grant.subject, call.idempotencyKey);
    await this.deps.credits.markSettling(mark, JSON.stringify({ grant, payload: payment.payload }), MARK_SECONDS);
    const settled = await this.reach(() => this.deps.facilitator.settle(payment.payload, wanted));
    if (!settled.success) {
      await this.deps.credits.clearSettling(mark);
      this.deps.hooks?.onRefused?.(settled.errorReason ?? 'settle_failed');
      return 'replayed';
    }
    return settled;
  }

  /**
   * A payment of this payer and key whose settlement was never answered (the process died, or the facilitator
   * timed out, after it was asked), or whose grant-and-hold never answered: verified again, a payment the chain
   * has used (its nonce spent) was settled, so its grant is answered, for the same grant-and-hold as a fresh
   * settlement's (which clears the mark); one still valid was never settled and is dropped with its mark.
   */
  private async resolveUnanswered<T>(subject: string, call: PaidCall<T>): Promise<GrantRequest | undefined> {
    const mark = markIdOf(subject, call.idempotencyKey);
    const found = await this.deps.credits.settlingMark(mark);
    if (found === undefined) return undefined;
    const { grant, payload } = JSON.parse(found) as { grant: GrantRequest; payload: PaymentPayload };
    const verified = await this.reach(() => this.deps.facilitator.verify(payload, this.requirements(grant.credits)));
    if (!verified.isValid && /nonce/i.test(verified.invalidReason ?? '')) return grant;
    await this.deps.credits.clearSettling(mark);
    return undefined;
  }

  /** The `credits.granted` event (and `credits.low`) of a grant a claim made, once: the claim answers it only when it made it. */
  private async announce(subject: string, granted: ClaimGrant): Promise<void> {
    this.deps.hooks?.onGranted?.(granted.entry.credits);
    await this.deps.events.granted(subject, granted.entry, granted.account.balance);
    if (granted.fellLow && this.deps.lowThreshold !== undefined) {
      await this.deps.events.fellLow(subject, granted.entry.id, granted.account.balance, this.deps.lowThreshold);
    }
  }

  /** A facilitator call; one that cannot be reached is a 503, nothing held. */
  private async reach<R>(work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch {
      throw new PaymentFacilitatorUnavailableError(5);
    }
  }

  /** The settlement answer of a call funded from the account: no transaction. */
  private unsettled(payment: ExactPayment): SettleResponse {
    return {
      success: true,
      transaction: '',
      network: this.deps.settings.network as SettleResponse['network'],
      payer: payment.authorization.from,
    };
  }

  private refusal(credits: number, resource: PaidResource, reason: string | undefined, detail: string): Error {
    const required = paymentRequiredFor(this.deps.settings, credits, resource, reason);
    return new PaymentRequiredError(detail, Buffer.from(JSON.stringify(required)).toString('base64'), reason);
  }
}

/** How long a settling mark is kept: longer than any authorization it could name stays valid. */
const MARK_SECONDS = 3600;

/** The mark of the payments of one payer and key being settled. */
function markIdOf(subject: string, idempotencyKey: string): string {
  return `${subject}\n${idempotencyKey}`;
}

/** The payload's `accepted` requirements against the ones asked for (scheme, network, asset, payee, amount). */
function acceptedMismatch(accepted: PaymentRequirements | undefined, wanted: PaymentRequirements): string | undefined {
  if (!accepted || typeof accepted !== 'object') return 'the payment names no requirements';
  if (accepted.scheme !== wanted.scheme) return 'the payment must use the exact scheme';
  if (accepted.network !== wanted.network) return 'the payment is for another network';
  if (String(accepted.asset).toLowerCase() !== wanted.asset.toLowerCase()) return 'the payment is in another asset';
  if (String(accepted.payTo).toLowerCase() !== wanted.payTo.toLowerCase()) return 'the payment is to another address';
  if (accepted.amount !== wanted.amount) return 'the payment is for another amount';
  return undefined;
}
