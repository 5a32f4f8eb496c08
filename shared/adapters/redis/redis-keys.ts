import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RedisConnection } from '../../platform/config/redis-settings';

/** The BullMQ queue of paid jobs (shard 0); its keys live under {@link RedisKeys.bullPrefix}. */
export const JOB_QUEUE_NAME = 'jobs';
/** The BullMQ queue of webhook deliveries (one job per event), beside the jobs' queue under the same prefix. */
export const WEBHOOK_QUEUE_NAME = 'webhooks';

/**
 * Every Redis key the connector uses, built from one configurable prefix so that several connectors (or
 * test runs) can share a server. Subjects are hashed into key names: a subject may be an e-mail address,
 * and key names show up in monitoring tools, slow logs and `SCAN` output where personal data has no place.
 * On a Redis Cluster (`clustered`) keys a script reads together share a hash tag: a subject's digest, or a
 * job-queue shard's name (docs/decisions/cluster-hash-tags.md).
 */
export class RedisKeys {
  constructor(
    readonly prefix: string,
    readonly clustered = false,
  ) {}

  /** The keys for a connection: hash-tagged when it is a cluster. */
  static forConnection(prefix: string, connection: RedisConnection): RedisKeys {
    return new RedisKeys(prefix, connection.topology.mode === 'cluster');
  }

  /** The prefix handed to BullMQ; its keys then read `<prefix>bull:<queue>:…`. */
  get bullPrefix(): string {
    return `${this.prefix}bull`;
  }

  /**
   * The BullMQ queue name of one paid-job shard: `jobs` for shard 0 (the only queue before sharding), then
   * `jobs-1`, `jobs-2`, …; on a cluster each is its own hash tag, so the shards spread over the primaries.
   */
  jobQueueName(shard: number): string {
    return this.tag(shard === 0 ? JOB_QUEUE_NAME : `${JOB_QUEUE_NAME}-${shard}`);
  }

  /** The BullMQ queue of webhook deliveries; on a cluster its own hash tag, like each job shard. */
  get webhookQueueName(): string {
    return this.tag(WEBHOOK_QUEUE_NAME);
  }

  /** Set of every shard count the deployment has run with, so no shard that ever held jobs is forgotten. */
  get jobShardCounts(): string {
    return `${this.prefix}job-shards`;
  }

  /**
   * Hash of one connection: subject, issued_at, expires_at, revoked (0/1), for OAuth grants client_id and
   * client_name, and once used last_used_at (seconds; written at most once a minute); expires with the token.
   */
  connection(connectionId: string): string {
    return `${this.prefix}conn:${connectionId}`;
  }

  /**
   * Set of a subject's connection ids, for "revoke every connection of this subject" and the dashboard's
   * list (which reads each member's hash and orders them by issued_at: a set has no order of its own).
   */
  subjectConnections(subject: string): string {
    return `${this.subjectRoot(subject)}:conns`;
  }

  /** Sorted set of a subject's things: score = sequence number, member = the thing as JSON. */
  subjectThings(subject: string): string {
    return `${this.subjectRoot(subject)}:things`;
  }

  /** Sorted set of a subject's job ids: score = sequence number. */
  subjectJobs(subject: string): string {
    return `${this.subjectRoot(subject)}:jobs`;
  }

  /** Hash of what a subject has been charged: jobs_charged, credits_spent. */
  subjectUsage(subject: string): string {
    return `${this.subjectRoot(subject)}:usage`;
  }

  /** Credits charged to a subject on one UTC day (`YYYY-MM-DD`), for the daily budget; expires after it. */
  subjectDailySpend(subject: string, day: string): string {
    return `${this.subjectRoot(subject)}:spent:${day}`;
  }

  /**
   * Credits charged to a subject on one UTC day for one operation with a daily cap of its own; beside the day's
   * spend key, in the subject's slot, and expires like it.
   */
  subjectOperationDailySpend(subject: string, operation: string, day: string): string {
    return `${this.subjectRoot(subject)}:op-spent:${day}:${operation}`;
  }

  /**
   * Hash of the credits charged to a subject per UTC day (field `YYYY-MM-DD`, the day's total), for the
   * dashboard's usage: the last 91 days, written with the day's spend key by the claim.
   */
  subjectSpendHistory(subject: string): string {
    return `${this.subjectRoot(subject)}:spent-days`;
  }

  /** Credits refunded to a subject on one UTC day; beside the day's spend key, and read with it by the cap. */
  subjectDailyRefunds(subject: string, day: string): string {
    return `${this.subjectRoot(subject)}:refunded:${day}`;
  }

  /** Hash of the credits refunded to a subject per UTC day, kept like {@link RedisKeys.subjectSpendHistory}. */
  subjectRefundHistory(subject: string): string {
    return `${this.subjectRoot(subject)}:refunded-days`;
  }

  /**
   * The refund record of one job: its existence means the job's credits were given back. On a cluster it sits
   * in its subject's slot, so the record and the usage it changes are written by one script.
   */
  refund(subject: string, jobId: string): string {
    return `${this.subjectRoot(subject)}:refund:${jobId}`;
  }

  /** Hash of a subject's credit account: `balance` (what can be held now) and `held` (kept aside for jobs). */
  subjectCredits(subject: string): string {
    return `${this.subjectRoot(subject)}:credits`;
  }

  /** Sorted set of a subject's credit entries: score = sequence number, member = the entry as JSON. */
  subjectCreditEntries(subject: string): string {
    return `${this.subjectRoot(subject)}:credit-entries`;
  }

  /** Hash of a subject's grants and adjustments: field = grant id, value = `<fingerprint> <entry JSON>`. */
  subjectGrants(subject: string): string {
    return `${this.subjectRoot(subject)}:grants`;
  }

  /**
   * A job's hold on its subject's credits (`<state>|<credits>|<kept>|<acceptance>`), in its subject's slot on a
   * cluster, so that the hold, the account and the entries move in one script (the ledger's claim among them).
   */
  creditHold(subject: string, jobId: string): string {
    return `${this.subjectRoot(subject)}:hold:${jobId}`;
  }

  /**
   * The repair mark of a job's hold (`<ms>:<id>`): taken by a retry that is about to enqueue the job its first
   * attempt never enqueued, compared by the orphan sweep's release (docs/decisions/repair-mark-fences-the-sweep.md).
   * In the subject's slot, beside the hold and the key's record.
   */
  holdRepair(subject: string, jobId: string): string {
    return `${this.subjectRoot(subject)}:hold-repair:${jobId}`;
  }

  /**
   * Sorted set of open holds for the orphan sweep: member `[subject, job id, acceptance]` as JSON, score the
   * acceptance (ms). One key across subjects (its own slot on a cluster): the claim adds to it just before
   * its own script, the sweep takes the due ones and each hold's release is a script in its subject's slot.
   */
  get openHolds(): string {
    return `${this.prefix}credit-holds:open`;
  }

  /**
   * Sorted set of the subjects with a credit account (every score 0, so they are kept in the order of their
   * names): what the summary and the export walk. Its own slot on a cluster; a grant adds its subject before
   * it moves money, so no account with entries is ever missing from it.
   */
  get creditAccounts(): string {
    return `${this.prefix}credit-accounts`;
  }

  /**
   * Sorted set of the grants that expire: member `[subject, grant id]` as JSON, score the expiry (ms). Its own
   * slot on a cluster: a grant adds to it before it moves money; the expiry sweep takes the due ones.
   */
  get creditExpiries(): string {
    return `${this.prefix}credit-expiries`;
  }

  /** The claim of one void id across every subject (value: the fingerprint of the void's body), hashed like a grant id. */
  voidId(voidId: string): string {
    return `${this.prefix}void:${digest(voidId)}`;
  }

  /**
   * The claim of one grant id across every subject (value: the fingerprint of the grant's body); the id is
   * hashed, being the dashboard's own. A key of its own: on a cluster its slot is the id's, not a subject's.
   */
  grantId(grantId: string): string {
    return `${this.prefix}grant:${digest(grantId)}`;
  }

  /** An x402 payment being settled, by the digest of its payer and idempotency key, until its settlement is answered. */
  settling(markId: string): string {
    return `${this.prefix}x402-settling:${digest(markId)}`;
  }

  /** Counter that numbers a subject's things, jobs and credit entries, so pages are cut by position, not by time. */
  subjectSequence(subject: string): string {
    return `${this.subjectRoot(subject)}:seq`;
  }

  /** The key job ids are computed with, fixed at first use so a secret rotation keeps every job id. */
  get jobIdKey(): string {
    return `${this.prefix}job-id-key`;
  }

  /**
   * The idempotency record of one accepted job (value: the payload fingerprint, then `:<shard>` when the job
   * went to a shard other than 0), kept for the retention. On a cluster it sits in its subject's slot, beside
   * the charge the same claim makes.
   */
  idempotency(subject: string, jobId: string): string {
    return this.clustered ? `${this.prefix}idem:{${digest(subject)}}:${jobId}` : `${this.prefix}idem:${jobId}`;
  }

  /** A used spend quote's nonce (random, base64url), kept until its quote expires. */
  spendQuoteNonce(nonce: string): string {
    return `${this.prefix}quote:${nonce}`;
  }

  /** One fixed rate-limit window; the limiter's key may name a subject or an address, so it is hashed too. */
  rateWindow(limiterKey: string): string {
    return `${this.prefix}rl:${digest(limiterKey)}`;
  }

  /**
   * Hash of one OAuth record (`v`: value, `c`: consumed); keys of codes and refresh tokens are already hashes.
   * On a cluster a kind's records share its slot with the kind's index (OAuth traffic is light).
   */
  oauth(kind: string, key: string): string {
    return `${this.prefix}oauth:${this.tag(kind)}:${digest(key)}`;
  }

  /** Sorted set of the live records of one OAuth kind, scored by expiry, for capped kinds. */
  oauthIndex(kind: string): string {
    return `${this.prefix}oauth:${this.tag(kind)}:index`;
  }

  /** Sorted set of the registered clients that never had a grant, scored by expiry: evicted first at the cap. */
  get oauthUnusedClients(): string {
    return `${this.prefix}oauth:${this.tag('client')}:unused`;
  }

  /** Sorted set of the registered clients that had a grant, scored by the end of their last one (ms). */
  get oauthGrantedClients(): string {
    return `${this.prefix}oauth:${this.tag('client')}:granted`;
  }

  private subjectRoot(subject: string): string {
    return `${this.prefix}subj:${this.tag(digest(subject))}`;
  }

  private tag(value: string): string {
    return this.clustered ? `{${value}}` : value;
  }
}

/**
 * Recent digests: every bearer request names the same subject and address in two or three keys, and a
 * SHA-256 each time cost more than the lookup. Bounded, so distinct values only ever cost this many entries.
 */
const recentDigests = new LRUCache<string, string>({ max: 10_000 });

/** 128 bits of SHA-256, base64url: short, fixed-length, collision-free in practice. */
function digest(value: string): string {
  let hashed = recentDigests.get(value);
  if (hashed === undefined) {
    hashed = createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);
    recentDigests.set(value, hashed);
  }
  return hashed;
}
