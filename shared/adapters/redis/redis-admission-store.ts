import type {
  AdmissionStore,
  BearerAdmission,
  BearerAdmissionRequest,
  ClaimAdmissionRequest,
} from '../../domain/admission/admission-store';
import { LAST_USE_RESOLUTION_SECONDS } from '../../domain/connections/connection-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { usageOf } from './redis-ledger-store';

/** What includes/admit-connection.lua answers: the outcome, and for a live connection its window and client. */
export type AdmissionReply = [string, number?, number?, (string | null)?, (string | null)?];

/** admit-bearer-6.lua's answer: the admission's, then the usage reads when asked for. */
type AdmitReply = [...AdmissionReply, ...Array<string | null>];

/** The keys and arguments a claim's script adds to admit its request first (admit-claim-and-read-18.lua's last ones). */
export interface AdmissionAlongClaim {
  keys: string[];
  args: Array<string | number>;
}

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

  /** The admission a paid job's claim makes first, in its own script: the connection's and window's keys, then its arguments. */
  alongClaim(request: ClaimAdmissionRequest): AdmissionAlongClaim {
    return {
      keys: [this.keys.connection(request.connectionId), this.keys.rateWindow(request.rateKey)],
      args: [request.subject, request.windowSeconds, Math.floor(this.now() / 1000), LAST_USE_RESOLUTION_SECONDS, request.quota],
    };
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
    const admission = admissionOf(reply as AdmissionReply);
    if (admission.outcome === 'admitted' && request.usageDay !== undefined) {
      const [, , , , , jobsCharged, creditsCharged, spent, creditsRefunded, refunded, balance, held] = reply;
      admission.usage = {
        usage: usageOf(jobsCharged, creditsCharged, creditsRefunded),
        day: request.usageDay,
        spentOnDay: Number(spent ?? 0) - Number(refunded ?? 0),
        credits: { balance: Number(balance ?? 0), held: Number(held ?? 0) },
      };
    }
    return admission;
  }
}

/** The admission in a script's answer (includes/admit-connection.lua's), as the port answers it. */
export function admissionOf([outcome, count, ttl, clientId, clientName]: AdmissionReply): BearerAdmission {
  if (outcome !== 'admitted') return { outcome: 'revoked' };
  const window = { count: Number(count), resetInSeconds: Math.max(1, Number(ttl)) };
  return { outcome, window, ...(clientId ? { client: { id: clientId, name: clientName ?? '' } } : {}) };
}
