import type { AdmissionStore } from './admission/admission-store';
import type { RateLimitStore } from './admission/rate-limit-store';
import type { ConnectionStore } from './connections/connection-store';
import type { CreditStore } from './credits/credit-store';
import type { JobIdKeyStore } from './jobs/job-id-key-store';
import type { JobQueue } from './jobs/job-queue';
import type { JobService, JobServiceParts } from './jobs/job-service';
import type { LedgerStore } from './ledger/ledger-store';
import type { OAuthStateStore } from './oauth/oauth-state-store';
import type { QuoteNonceStore } from './spend/quote-nonce-store';
import type { ThingStore } from './things/thing-store';
import type { EventQueue } from './webhooks/event-queue';

/** Everything stateful the API needs, from one backend (memory or Redis). */
export interface Backend {
  readonly kind: 'memory' | 'redis';
  readonly connections: ConnectionStore;
  readonly things: ThingStore;
  readonly ledger: LedgerStore;
  /** Subjects' credit accounts (used in `prepaid` billing). */
  readonly credits: CreditStore;
  readonly rateLimits: RateLimitStore;
  /** Admits bearer requests: failure budget, revocation and rate limit in one call. */
  readonly admissions: AdmissionStore;
  readonly queue: JobQueue;
  /**
   * The job service on this backend's ledger, queue and job lifecycle (which settles a job a cancel finds
   * queued); `parts` are what the domain adds. Built by shared/adapters/compose-jobs.ts.
   */
  jobService(parts: JobServiceParts): JobService;
  /** Keeps the job-id key across secret rotations. */
  readonly jobIdKeys: JobIdKeyStore;
  readonly oauth: OAuthStateStore;
  /** The nonces of spend quotes already used (an MCP spend confirmation buys one acceptance). */
  readonly quoteNonces: QuoteNonceStore;
  /** Where webhook events are recorded (a no-op without a receiver). */
  readonly events: EventQueue;
  /** True when the backend answers (for `/readyz`). */
  ready(): Promise<boolean>;
  /** Drains the queue within `graceMs`, then releases connections. */
  close(graceMs: number): Promise<void>;
}
