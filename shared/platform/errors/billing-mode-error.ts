import { AppError } from './app-error';

/** 409: credits granted to a connector that bills `metered`, where a balance means nothing. Nothing was recorded. */
export class BillingModeError extends AppError {
  constructor() {
    super(
      409,
      'billing-mode',
      'Credits need prepaid billing',
      'This connector runs with BILLING_MODE=metered: charges are counted, not paid from a balance. Set BILLING_MODE=prepaid to grant credits; nothing was recorded.',
    );
  }
}
