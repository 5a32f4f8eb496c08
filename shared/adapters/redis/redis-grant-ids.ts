import type { CreditEntry, GrantRequest, GrantResult } from '../../domain/credits/credit-store';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/** A grant's member of the expiry index: its subject and grant id, as JSON. */
export function dueMember(subject: string, grantId: string): string {
  return JSON.stringify([subject, grantId]);
}

/**
 * What a grant does outside its subject's slot, before any money moves: the grant id's claim across subjects
 * (never expires, so a checkout or a payment is credited once), then the indexes (the summary's and the
 * export's accounts, the expiry sweep's grants), each in its own slot on a cluster and safe to repeat. The
 * grant itself is a script in the subject's slot: the credit store's own, or the ledger's claim when a settled
 * payment funds a job (docs/decisions/x402-grant-and-hold.md). A death between the two is repaired by a retry
 * of the same grant. The credit store's void ids are claimed the same way.
 */
export class RedisGrantIds {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {}

  /**
   * Claims an id for one body across every subject: `new` when this call recorded it, `same` when the same body
   * did before, `conflict` when another body holds it. The first `SET NX` wins, and the value it wrote never
   * changes (no expiry, never overwritten), so reading it back after a lost `SET NX` needs no script.
   */
  async claimId(key: string, fingerprint: string): Promise<'new' | 'same' | 'conflict'> {
    const set = await this.guard.commands(() => this.client.set(key, fingerprint, 'NX'));
    if (set === 'OK') return 'new';
    const known = await this.guard.commands(() => this.client.get(key));
    return known === fingerprint ? 'same' : 'conflict';
  }

  /** Claims the grant's id and indexes it; `conflict` (nothing done) when the id names a grant with another body. */
  async prepare(request: GrantRequest, expiresMs: number): Promise<'ready' | 'conflict'> {
    if ((await this.claimId(this.keys.grantId(request.grantId), request.fingerprint)) === 'conflict') return 'conflict';
    const { subject } = request;
    await this.guard.commands(() => this.client.zadd(this.keys.creditAccounts, 'NX', 0, subject));
    if (expiresMs >= 0)
      await this.guard.commands(() => this.client.zadd(this.keys.creditExpiries, expiresMs, dueMember(subject, request.grantId)));
    return 'ready';
  }
}

/**
 * A grant's result from the `credit-grant` include's answer (outcome, entry JSON, balance, held, fell below);
 * anything else means the script and this code disagree: refusing beats guessing about money.
 */
export function grantResultOf(reply: readonly unknown[]): GrantResult {
  const [outcome, entry, balance, held, fell] = reply;
  if (outcome === 'conflict') return { outcome };
  if ((outcome !== 'created' && outcome !== 'replayed') || typeof entry !== 'string')
    throw new Error(`unexpected grant outcome ${String(outcome)}`);
  const result = { entry: JSON.parse(entry) as CreditEntry, account: { balance: Number(balance), held: Number(held) } };
  return outcome === 'created' ? { outcome, ...result, fellLow: Number(fell) === 1 } : { outcome, ...result };
}
