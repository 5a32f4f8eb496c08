import type { BearerAdmission, ClaimAdmissionRequest } from '../admission/admission-store';
import type { Claim, ClaimRequest, LedgerStore } from '../ledger/ledger-store';
import type { JobRecord } from './job';
import type { JobQueue } from './job-queue';

/** A claim, and the job its id names as read on the claim's shard right after it (undefined: not there). */
export interface ClaimRead {
  claim: Claim;
  job: JobRecord | undefined;
}

/** A bearer admission's outcome and, when it admitted the request within its quota, the claim and read made after it. */
export interface AdmittedClaimRead {
  admission: BearerAdmission;
  read?: ClaimRead;
}

/**
 * Makes the ledger's claim and the job queue's read of the claimed id: in one atomic step where the backend
 * can (one Redis node: one script instead of two commands), else {@link claimsBeside}.
 */
export interface ClaimReader {
  /** The claim of `request`, then the read of its job on `request.shard`. */
  claimAndRead(request: ClaimRequest & { shard: number }): Promise<ClaimRead>;
  /**
   * The bearer admission `admission` first and, only for a request it admits within its quota, the claim and the
   * read: one step on one Redis node. Absent where the backend cannot: the API then admits before the body.
   */
  admitClaimAndRead?(request: ClaimRequest & { shard: number }, admission: ClaimAdmissionRequest): Promise<AdmittedClaimRead>;
}

/** The claim and the read sent side by side, as two calls: for a backend without a reader of its own. */
export function claimsBeside(ledger: Pick<LedgerStore, 'claim'>, queue: Pick<JobQueue, 'get'>): ClaimReader {
  return {
    claimAndRead: (request) =>
      Promise.all([ledger.claim(request), queue.get(request.jobId, request.shard)]).then(([claim, job]) => ({ claim, job })),
  };
}
