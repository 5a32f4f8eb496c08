import type { Claim, ClaimRequest } from '../ledger/ledger-store';
import type { JobRecord } from './job';

/** A claim, and the job its id names as read on the claim's shard right after it (undefined: not there). */
export interface ClaimRead {
  claim: Claim;
  job: JobRecord | undefined;
}

/**
 * A backend that makes the ledger's claim and the job queue's read of the claimed id in one atomic step (one
 * Redis node: one script instead of two commands). Without one, the job service sends the two side by side.
 */
export interface ClaimReader {
  /** The claim of `request`, then the read of its job on `request.shard`. */
  claimAndRead(request: ClaimRequest & { shard: number }): Promise<ClaimRead>;
}
