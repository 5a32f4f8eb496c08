import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import type { PaymentFacilitator } from '../../domain/x402/x402-checkout';
import type { X402Settings } from '../../platform/config/x402-settings';

/** How long one facilitator call may take: a settlement waits for its transaction, a few blocks at most. */
const FACILITATOR_TIMEOUT_MS = 30_000;

/** What a refusal from the facilitator carries (the client throws it for a non-2xx answer with a body). */
interface RefusalError extends Error {
  invalidReason?: string;
  errorReason?: string;
  payer?: string;
  transaction?: string;
  network?: string;
}

/**
 * The facilitator at `X402_FACILITATOR_URL`, through the official HTTP client of `@x402/core`: a refusal
 * (`VerifyError`, `SettleError`) is returned as the answer it is; anything else (down, timeout, nonsense) is
 * thrown, which the checkout answers 503 with nothing held.
 */
export function httpFacilitator(settings: Pick<X402Settings, 'facilitatorUrl' | 'facilitatorToken'>): PaymentFacilitator {
  const { facilitatorToken } = settings;
  const client = new HTTPFacilitatorClient({
    url: settings.facilitatorUrl,
    timeoutMs: FACILITATOR_TIMEOUT_MS,
    ...(facilitatorToken === undefined
      ? {}
      : {
          createAuthHeaders: async () => {
            const headers = { Authorization: `Bearer ${facilitatorToken}` };
            return { verify: headers, settle: headers, supported: headers };
          },
        }),
  });
  return {
    async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
      try {
        return await client.verify(payload, requirements);
      } catch (error) {
        const refusal = error as RefusalError;
        if (refusal.name !== 'VerifyError') throw error;
        return { isValid: false, invalidReason: refusal.invalidReason ?? 'invalid_payment' };
      }
    },
    async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      try {
        return await client.settle(payload, requirements);
      } catch (error) {
        const refusal = error as RefusalError;
        if (refusal.name !== 'SettleError') throw error;
        return {
          success: false,
          errorReason: refusal.errorReason ?? 'settle_failed',
          transaction: refusal.transaction ?? '',
          network: requirements.network,
        };
      }
    },
  };
}
