import type { NextFunction, Request, Response } from 'express';
import type { AuthScheme, Operation } from '../../shared/contract/operations/operation';
import type { Backend } from '../../shared/domain/backend';
import type { TokenService } from '../../shared/domain/connections/token-service';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import { state } from '../http/locals';
import { bearerCheck } from './bearer-check';
import { type ClientKey, clientKeyOf } from './client-key';
import { type FailureBudget, failureBudget } from './failure-budget';
import { linkSecretCheck } from './link-secret-check';
import { type OperationRateCheck, operationRate } from './operation-rate';
import type { SchemeCheck } from './scheme-check';
import { addressRateLimit, payableByX402 } from './x402-admission';

/** The settings admission reads. */
export interface AdmissionSettings {
  linkSecret: string;
  /** `LINK_SECRET_PREVIOUS`, accepted beside `linkSecret` during a rotation. */
  linkSecretPrevious?: string | undefined;
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
  /** `CLIENT_IPV6_PREFIX`: an IPv6 client is counted by its network of this many bits. */
  clientIpv6Prefix: number;
  /** `X402=on`: a paid operation called without a bearer token is admitted to be paid with x402. */
  x402?: unknown;
}

/** What the admission step is built from. */
export interface AdmissionDependencies {
  config: AdmissionSettings;
  tokens: TokenService;
  backend: Pick<Backend, 'rateLimits' | 'admissions'>;
  metrics: Metrics;
  /** Whether the backend's job claims can make a bearer admission in their own step (`JobService.admitsWithClaim`). */
  claimsAdmit?: boolean;
}

/** The admission step, and the failure budget it keeps, for endpoints outside the registry (OAuth). */
export interface Admission {
  /** Middleware: admits or refuses the request for the operation in its state. */
  admit: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  /**
   * The same for the operations' REST chain, which puts a paid job's bearer admission off until its claim
   * where the backend can make it there ({@link putsOff}); the chain's errors then go through `admitPutOff`.
   */
  admitOperation: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  failures: FailureBudget;
  /** The key every per-address limit counts a request's client under, for the OAuth endpoints' limits too. */
  clientKey: ClientKey;
  /** Counts an operation's own rate limit: bearer admission's, and MCP's for each tool call. */
  operationRate: OperationRateCheck;
}

/**
 * The one step that decides whether a request may run, after its operation is matched and before its body
 * is read: each auth scheme's check (rate limit, authentication and the failed-authentication budget in
 * that scheme's order) is chosen here, once. REST operations and `/mcp` (admitted as a bearer operation) go
 * through the same step, so they share one budget per address.
 */
export function admission({ config, tokens, backend, metrics, claimsAdmit = false }: AdmissionDependencies): Admission {
  const clientKey = clientKeyOf(config.clientIpv6Prefix);
  const failures = failureBudget(backend.rateLimits, config.authFailuresPerMinute, metrics, clientKey);
  const ownRate = operationRate(backend.rateLimits);
  const bearer = { tokens, admissions: backend.admissions, failures, perMinute: config.rateLimitPerMinute, operationRate: ownRate };
  // A Record, so that a new scheme does not compile until it has a check.
  const checks: Record<AuthScheme, SchemeCheck> = {
    bearer: bearerCheck(bearer),
    'link-secret': linkSecretCheck({
      linkSecret: config.linkSecret,
      previousLinkSecret: config.linkSecretPrevious,
      onPrevious: () => metrics.previousSecretUses.inc({ secret: 'link' }),
      rateLimits: backend.rateLimits,
      clientKey,
      failures,
      perMinute: config.rateLimitPerMinute,
    }),
  };

  const operationChecks = { ...checks, ...(claimsAdmit ? { bearer: bearerCheck({ ...bearer, putOff: putsOff }) } : {}) };
  const addressLimit = addressRateLimit(backend.rateLimits, clientKey, config.rateLimitPerMinute);
  const admitWith =
    (schemes: Record<AuthScheme, SchemeCheck>) =>
    async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      const operation = state(res).operation;
      try {
        // Fail closed: a route that forgot to name its operation must not run unauthenticated.
        if (!operation) throw new Error('admission reached without a matched operation');
        if (config.x402 && payableByX402(operation, req)) {
          // Its own address limit, as the link secret's callers: an agent without a token has no subject yet.
          await addressLimit(req, res);
          state(res).x402 = true;
          next();
          return;
        }
        await schemes[operation.auth](req, res, operation);
        next();
      } catch (error) {
        next(error);
      }
    };
  return { admit: admitWith(checks), admitOperation: admitWith(operationChecks), failures, clientKey, operationRate: ownRate };
}

/**
 * Whether a paid job's admission may wait for its claim: its handler hands the admission to the claim, and the
 * claim's step can make all of it (no usage to read, no window of the operation's own to hit after the subject's).
 */
export function putsOff(operation: Operation): boolean {
  return operation.admitsInClaim === true && !operation.readsUsage && operation.limits?.perMinute === undefined;
}
