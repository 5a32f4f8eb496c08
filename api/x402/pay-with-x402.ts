import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, SettleResponse } from '@x402/core/types';
import type { BearerOperation, OperationRequest, OperationResult } from '../../shared/contract/operations/operation';
import { bodyShapeOf, jobInputOf } from '../../shared/contract/operations/paid-body';
import { idempotencyKeyOf } from '../../shared/contract/operations/paid-operation';
import { priceOf } from '../../shared/domain/jobs/price';
import type { Services } from '../../shared/domain/services';
import { SHORT, type X402Checkout } from '../../shared/domain/x402/x402-checkout';
import { InsufficientCreditsError } from '../../shared/platform/errors/problems';

/** The header that carries the payer's token: read, poll and cancel the job, and retry, without a person's token. */
export const PAYER_TOKEN_HEADER = 'Payer-Token';

/** A paid call the x402 checkout answers: the operation, its validated request, and where it was called. */
export interface X402Call {
  operation: BearerOperation;
  request: OperationRequest;
  /** The resource's absolute URL (`PUBLIC_URL` and the operation's path), named in `PaymentRequired.resource`. */
  url: string;
}

/** What a paid call came to: the operation's answer, the settlement to send back, and the payer's token. */
export interface X402Answer {
  result: OperationResult;
  settlement: SettleResponse;
  payerToken: string;
}

/**
 * Runs a paid operation called without a bearer token: with no `PAYMENT-SIGNATURE`, a 402 naming the price of
 * this input; with one, the checkout pays (or finds the account already holds the price) and the operation's
 * own handler submits the job for the payer's account, so the answer is the same 202 a person gets, plus
 * `PAYMENT-RESPONSE` and the payer's token (docs/decisions/x402-payer-token.md).
 */
export async function payWithX402(call: X402Call, services: Services): Promise<OperationResult> {
  const header = call.request.header('payment-signature');
  const { result, settlement, payerToken } = await payForCall(call, header ? decoded(header) : undefined, services);
  return {
    ...result,
    headers: {
      ...result.headers,
      'PAYMENT-RESPONSE': encodePaymentResponseHeader(settlement),
      [PAYER_TOKEN_HEADER]: payerToken,
    },
  };
}

/**
 * The one checkout of a paid call, whatever carried the payment (HTTP's header, MCP's `_meta`): no payment
 * throws the 402 of this input's price; a payment is paid or found on the account, and the job submitted for it.
 */
export async function payForCall(call: X402Call, payment: PaymentPayload | undefined, services: Services): Promise<X402Answer> {
  const checkout = services.x402 as X402Checkout;
  const { operation, request } = call;
  const credits = priceOf(operation.price!, jobInputOf(operation, request.body));
  const resource = { url: call.url, description: operation.summary };
  if (!payment) return checkout.required(credits, resource);
  const idempotencyKey = idempotencyKeyOf(request, bodyShapeOf(operation));
  const outcome = await checkout.pay({
    payment,
    credits,
    idempotencyKey,
    resource,
    submit: async (subject, funding) => {
      try {
        return await operation.handle({ ...request, principal: payerPrincipal(subject), ...(funding ? { funding } : {}) }, services);
      } catch (error) {
        if (error instanceof InsufficientCreditsError) return SHORT;
        throw error;
      }
    },
  });
  const linked = await services.links.payerLink(outcome.subject);
  return { result: outcome.result, settlement: outcome.settlement, payerToken: linked.token };
}

/** The decoded `PAYMENT-SIGNATURE`; a header that is not one reads as an empty payload, which the checkout refuses with a 402. */
function decoded(header: string): PaymentPayload {
  try {
    return decodePaymentSignatureHeader(header);
  } catch {
    return {} as PaymentPayload;
  }
}

/** The principal a paid call runs as: the payer's account, for this call only (no connection of its own). */
function payerPrincipal(subject: string) {
  const now = Math.floor(Date.now() / 1000);
  return { subject, connectionId: 'x402', issuedAt: now, expiresAt: now };
}
