import type { NextFunction, Request, Response } from 'express';
import type { TokenService } from '../../shared/domain/connections/token-service';
import { RateLimitedError } from '../../shared/platform/errors/rate-limited-error';
import { UnauthorizedError } from '../../shared/platform/errors/unauthorized-error';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import type { AdmissionStore } from '../../shared/domain/admission/admission-store';
import { utcDay } from '../../shared/domain/ledger/ledger-store';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import { announceRateLimit } from '../http/rate-limit-headers';
import { state } from '../http/locals';
import type { AuthFailureBudget } from './auth-failure-budget';
import { bearerToken } from './authenticate';
import { ratePolicy } from './rate-limit';

/** What admitting bearer requests needs. */
export interface BearerAdmissionOptions {
  tokens: TokenService;
  admissions: AdmissionStore;
  /** For the budget peek when the token itself is refused (there is then no connection to check). */
  rateLimits: RateLimitStore;
  failures: AuthFailureBudget;
  perMinute: number;
  metrics: Metrics;
}

/**
 * Admits a bearer operation's caller with one store call: the address's failed-authentication budget, then
 * the token's connection (revocation), then the subject's rate limit, each only if the one before passed.
 * The token's signature and claims are checked in memory first, to know the connection and subject; a
 * refused token still waits for the budget, so a spent budget answers 429 whatever is sent. Outcomes,
 * headers and metrics are those of the budget gate, `authenticate` and `rateLimit` one after another.
 * Operations of other schemes pass through.
 */
export function bearerAdmission({ tokens, admissions, rateLimits, failures, perMinute, metrics }: BearerAdmissionOptions) {
  const policy = ratePolicy('bearer', perMinute);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const locals = state(res);
    if (locals.operation?.auth !== 'bearer') return next();
    try {
      let claims;
      try {
        claims = tokens.claims(bearerToken(req));
      } catch (refused) {
        failures.refuseIfSpent(res, await rateLimits.peek(failures.key(req)));
        throw refused;
      }
      const admission = await admissions.admitBearer({
        failureKey: failures.key(req),
        failureQuota: failures.quota,
        connectionId: claims.connectionId,
        subject: claims.subject,
        rateKey: `sub:${claims.subject}`,
        windowSeconds: policy.windowSeconds,
        ...(locals.operation.readsUsage ? { usageDay: utcDay() } : {}),
      });
      if (admission.outcome === 'over-budget') failures.refuseIfSpent(res, admission.failures);
      if (admission.outcome !== 'admitted') throw new UnauthorizedError('revoked', 'bearer');
      locals.principal = admission.client ? { ...claims, client: admission.client } : claims;
      if (admission.usage) locals.usage = admission.usage;
      announceRateLimit(res, policy, admission.window);
      if (admission.window.count > policy.quota) throw new RateLimitedError(admission.window.resetInSeconds);
      next();
    } catch (error) {
      if (error instanceof UnauthorizedError) metrics.authFailures.inc({ reason: error.reason });
      next(error);
    }
  };
}
