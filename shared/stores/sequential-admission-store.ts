import type { AdmissionStore, BearerAdmission, BearerAdmissionRequest } from './admission-store';
import type { ConnectionStore } from './connection-store';
import type { LedgerStore } from './ledger-store';
import type { RateLimitStore } from './rate-limit-store';

/**
 * Admission from the separate stores, one call after another: right for the in-memory backend, where each
 * call costs no round trip, and the reference behaviour the Redis script must match.
 */
export class SequentialAdmissionStore implements AdmissionStore {
  constructor(
    private readonly connections: ConnectionStore,
    private readonly rateLimits: RateLimitStore,
    private readonly ledger: LedgerStore,
  ) {}

  async admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission> {
    const failures = await this.rateLimits.peek(request.failureKey);
    if (failures && failures.count >= request.failureQuota) return { outcome: 'over-budget', failures };
    const connection = await this.connections.get(request.connectionId);
    if (!connection || connection.revoked || connection.subject !== request.subject) return { outcome: 'revoked' };
    const window = await this.rateLimits.hit(request.rateKey, request.windowSeconds);
    const day = request.usageDay;
    const usage = day === undefined
      ? undefined
      : { usage: await this.ledger.usage(request.subject), day, spentOnDay: await this.ledger.spentOn(request.subject, day) };
    return { outcome: 'admitted', window, ...(connection.client ? { client: connection.client } : {}), ...(usage ? { usage } : {}) };
  }
}
