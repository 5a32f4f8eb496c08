import type { AdmissionStore, BearerAdmission, BearerAdmissionRequest } from '../../domain/admission/admission-store';
import { LAST_USE_RESOLUTION_SECONDS } from '../../domain/connections/connection-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { usageOf } from './redis-ledger-store';

type AdmitReply = [
  string,
  number?,
  number?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
  (string | null)?,
];

/**
 * Bearer admission on Redis: one script instead of a connection read, a rate-limit hit and the record of the
 * connection's use (and, for `GET /v1/me`, the reads of the subject's usage and credit account), with the
 * outcomes of the separate stores. Its keys span slots: a cluster admits with the single-slot scripts instead.
 * `now` (milliseconds) dates that use; tests move it.
 */
export class RedisAdmissionStore implements AdmissionStore {
  private readonly admitScript: LuaScript<AdmitReply>;

  constructor(
    client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
    private readonly now: () => number = Date.now,
  ) {
    this.admitScript = defineLuaScript(client, 'redis-admission-store/admit-bearer');
  }

  async admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission> {
    const reply = await this.guard.commands(() =>
      this.admitScript(
        [
          this.keys.connection(request.connectionId),
          this.keys.rateWindow(request.rateKey),
          this.keys.subjectUsage(request.subject),
          this.keys.subjectDailySpend(request.subject, request.usageDay ?? 'none'),
          this.keys.subjectDailyRefunds(request.subject, request.usageDay ?? 'none'),
          this.keys.subjectCredits(request.subject),
        ],
        [
          request.subject,
          request.windowSeconds,
          request.usageDay === undefined ? '0' : '1',
          Math.floor(this.now() / 1000),
          LAST_USE_RESOLUTION_SECONDS,
        ],
      ),
    );
    const [outcome, count, ttl, clientId, clientName, jobsCharged, creditsCharged, spent, creditsRefunded, refunded, balance, held] = reply;
    if (outcome !== 'admitted') return { outcome: 'revoked' };
    const window = { count: Number(count), resetInSeconds: Math.max(1, Number(ttl)) };
    const usage =
      request.usageDay === undefined
        ? undefined
        : {
            usage: usageOf(jobsCharged, creditsCharged, creditsRefunded),
            day: request.usageDay,
            spentOnDay: Number(spent ?? 0) - Number(refunded ?? 0),
            credits: { balance: Number(balance ?? 0), held: Number(held ?? 0) },
          };
    return { outcome, window, ...(clientId ? { client: { id: clientId, name: clientName ?? '' } } : {}), ...(usage ? { usage } : {}) };
  }
}
