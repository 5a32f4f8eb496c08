import type { RedisClient } from './redis-client';
import type { AdmissionStore, BearerAdmission, BearerAdmissionRequest } from '../../domain/admission/admission-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import { LAST_USE_RESOLUTION_SECONDS } from '../../domain/connections/connection-store';
import { recordUseLua } from './redis-connection-store';
import { usageOf } from './redis-ledger-store';
import { hitWindowLua } from './redis-rate-limit-store';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

// The revocation check and the subject's rate-limit hit of one bearer request, in that order and with the
// same outcomes as the separate stores (the connection hash of RedisConnectionStore, RedisRateLimitStore's
// HIT), in one round trip. A missing `revoked` field counts as revoked. With ARGV[3] = '1' an admitted
// request also reads the subject's usage and one day's spend (the ledger's keys), so that `GET /v1/me` needs
// no second round trip. A live connection's last use is recorded here too (RedisConnectionStore's touch), at
// most once a minute: a write only when the stored one is that old.
// KEYS: connection hash, subject window, subject usage, subject's spend that day, subject's refunds that day.
// ARGV: subject, window seconds, '1' to read the usage, now (seconds), last-use resolution.
const ADMIT = `
local conn = redis.call('HMGET', KEYS[1], 'subject', 'revoked', 'client_id', 'client_name', 'last_used_at')
if conn[1] ~= ARGV[1] or conn[2] ~= '0' then return {'revoked'} end
${recordUseLua('KEYS[1]', 'conn[5]', 'ARGV[4]', 'ARGV[5]')}
${hitWindowLua('KEYS[2]', 'ARGV[2]')}
if ARGV[3] == '1' then
  local usage = redis.call('HMGET', KEYS[3], 'jobs_charged', 'credits_spent', 'credits_refunded')
  return {'admitted', count, ttl, conn[3], conn[4], usage[1], usage[2], redis.call('GET', KEYS[4]), usage[3], redis.call('GET', KEYS[5])}
end
return {'admitted', count, ttl, conn[3], conn[4]}
`;

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
];

/**
 * Bearer admission on Redis: one script instead of a connection read, a rate-limit hit and the record of the
 * connection's use. `now` (milliseconds) dates that use; tests move it.
 */
export class RedisAdmissionStore implements AdmissionStore {
  private readonly admitScript: LuaScript<AdmitReply>;

  constructor(
    client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
    private readonly now: () => number = Date.now,
  ) {
    this.admitScript = defineLuaScript(client, 'admit_bearer', 5, ADMIT);
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
    const [outcome, count, ttl, clientId, clientName, jobsCharged, creditsCharged, spent, creditsRefunded, refunded] = reply;
    if (outcome !== 'admitted') return { outcome: 'revoked' };
    const window = { count: Number(count), resetInSeconds: Math.max(1, Number(ttl)) };
    const usage =
      request.usageDay === undefined
        ? undefined
        : {
            usage: usageOf(jobsCharged, creditsCharged, creditsRefunded),
            day: request.usageDay,
            spentOnDay: Number(spent ?? 0) - Number(refunded ?? 0),
          };
    return { outcome, window, ...(clientId ? { client: { id: clientId, name: clientName ?? '' } } : {}), ...(usage ? { usage } : {}) };
  }
}
