import type { AdmissionStore, BearerAdmission, BearerAdmissionRequest } from '../domain/admission/admission-store';
import type { RateLimitStore } from '../domain/admission/rate-limit-store';
import { type ConnectionStore, lastUseIsStale } from '../domain/connections/connection-store';
import type { CreditStore } from '../domain/credits/credit-store';
import type { LedgerStore, UsageSnapshot } from '../domain/ledger/ledger-store';

/** The stores a {@link SequentialAdmissionStore} reads, and its clock (milliseconds; `Date.now` unless given). */
export interface SequentialAdmissionStores {
  connections: ConnectionStore;
  rateLimits: RateLimitStore;
  ledger: LedgerStore;
  now?: () => number;
  credits?: Pick<CreditStore, 'account'>;
}

/**
 * Admission from the separate stores: the reference behaviour the Redis script must match, the in-memory
 * backend's admission, and a Redis Cluster's, where the connection, the subject's window and the subject's
 * charges sit in different hash slots and cannot be read by one script. The connection first, then,
 * together, the subject's window and usage and, when the connection's last use is a minute old, the record
 * of this one: only a live connection's subject window is hit (a revoked token must not spend its subject's
 * rate limit). `now` (milliseconds) dates the use. Given `credits`, the usage read carries the subject's credit
 * account too, read beside it.
 */
export class SequentialAdmissionStore implements AdmissionStore {
  private readonly connections: ConnectionStore;
  private readonly rateLimits: RateLimitStore;
  private readonly ledger: LedgerStore;
  private readonly now: () => number;
  private readonly credits?: Pick<CreditStore, 'account'>;

  constructor(stores: SequentialAdmissionStores) {
    this.connections = stores.connections;
    this.rateLimits = stores.rateLimits;
    this.ledger = stores.ledger;
    this.now = stores.now ?? Date.now;
    this.credits = stores.credits;
  }

  async admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission> {
    const connection = await this.connections.get(request.connectionId);
    if (!connection || connection.revoked || connection.subject !== request.subject) return { outcome: 'revoked' };
    const day = request.usageDay;
    const at = Math.floor(this.now() / 1000);
    // The stored value was just read: a fresh one costs no call, so a busy token touches once a minute.
    const [window, usage] = await Promise.all([
      this.rateLimits.hit(request.rateKey, request.windowSeconds),
      day === undefined ? undefined : this.usage(request.subject, day),
      lastUseIsStale(connection.lastUsedAt, at) ? this.connections.touch(request.connectionId, at) : undefined,
    ]);
    return { outcome: 'admitted', window, ...(connection.client ? { client: connection.client } : {}), ...(usage ? { usage } : {}) };
  }

  private async usage(subject: string, day: string): Promise<UsageSnapshot> {
    const [usage, spentOnDay, credits] = await Promise.all([
      this.ledger.usage(subject),
      this.ledger.spentOn(subject, day),
      this.credits?.account(subject),
    ]);
    return { usage, day, spentOnDay, ...(credits ? { credits } : {}) };
  }
}
