import type { AdmissionStore, BearerAdmission, BearerAdmissionRequest } from './admission-store';
import type { ConnectionStore } from './connection-store';
import type { LedgerStore } from './ledger-store';
import type { RateLimitStore } from './rate-limit-store';

/**
 * Admission from the separate stores: the reference behaviour the Redis script must match, the in-memory
 * backend's admission, and a Redis Cluster's, where the address's window, the connection and the subject's
 * keys sit in different hash slots and cannot be read by one script. Two rounds of independent calls: the
 * budget and the connection are read together, and only a live connection's subject window is hit (a
 * revoked token must not spend its subject's rate limit).
 */
export class SequentialAdmissionStore implements AdmissionStore {
  constructor(
    private readonly connections: ConnectionStore,
    private readonly rateLimits: RateLimitStore,
    private readonly ledger: LedgerStore,
  ) {}

  async admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission> {
    const [failures, connection] = await Promise.all([this.rateLimits.peek(request.failureKey), this.connections.get(request.connectionId)]);
    if (failures && failures.count >= request.failureQuota) return { outcome: 'over-budget', failures };
    if (!connection || connection.revoked || connection.subject !== request.subject) return { outcome: 'revoked' };
    const day = request.usageDay;
    const [window, usage] = await Promise.all([
      this.rateLimits.hit(request.rateKey, request.windowSeconds),
      day === undefined
        ? undefined
        : Promise.all([this.ledger.usage(request.subject), this.ledger.spentOn(request.subject, day)]).then(([usage, spentOnDay]) => ({ usage, day, spentOnDay })),
    ]);
    return { outcome: 'admitted', window, ...(connection.client ? { client: connection.client } : {}), ...(usage ? { usage } : {}) };
  }
}
