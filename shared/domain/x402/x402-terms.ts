import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { X402Settings } from '../../platform/config/x402-settings';

/** How long a payer's authorization may take to settle, in seconds (the `exact` scheme's `maxTimeoutSeconds`). */
export const X402_TIMEOUT_SECONDS = 300;

/** The x402 protocol version spoken (v2: `PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE`, `PAYMENT-RESPONSE`). */
export const X402_VERSION = 2;

/** What an x402 payment must be for a price: the `exact` scheme, the seller's asset and address, the amount in token units. */
export function requirementsFor(settings: X402Settings, credits: number): PaymentRequirements {
  return {
    scheme: 'exact',
    network: settings.network as PaymentRequirements['network'],
    asset: settings.asset,
    amount: (BigInt(settings.atomicPerCredit) * BigInt(credits)).toString(),
    payTo: settings.payTo,
    maxTimeoutSeconds: X402_TIMEOUT_SECONDS,
    extra: { name: settings.assetName, version: settings.assetVersion },
  };
}

/** The resource a payment is for, as `PaymentRequired.resource` names it. */
export interface PaidResource {
  url: string;
  description: string;
}

/** The x402 v2 `PaymentRequired` for one price (the price of this request's input); `error` says why a payment was refused. */
export function paymentRequiredFor(settings: X402Settings, credits: number, resource: PaidResource, error?: string): PaymentRequired {
  return {
    x402Version: X402_VERSION,
    ...(error === undefined ? {} : { error }),
    resource: { url: resource.url, description: resource.description, mimeType: 'application/json' },
    accepts: [requirementsFor(settings, credits)],
  };
}
