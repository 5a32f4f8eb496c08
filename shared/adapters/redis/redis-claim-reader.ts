import type { ClaimAdmissionRequest } from '../../domain/admission/admission-store';
import type { AdmittedClaimRead, ClaimRead, ClaimReader } from '../../domain/jobs/claim-reader';
import type { ClaimRequest } from '../../domain/ledger/ledger-store';
import type { BullmqJobQueue } from './bullmq-job-queue';
import { READ_JOB_CONSTANTS, type ReadJobReply, recordOfReadJob } from './bullmq-job-record';
import { defineLuaScript, type LuaScript } from './lua-script';
import { type AdmissionReply, admissionOf, type RedisAdmissionStore } from './redis-admission-store';
import type { RedisClient } from './redis-client';
import { type ClaimExtras, type ClaimReply, claimMade, type RedisLedgerStore } from './redis-ledger-store';

type ClaimAndReadReply = [ClaimReply, ReadJobReply];
/** The admission's answer, then the claim's and the job's unless the admission refused the request. */
type AdmitClaimAndReadReply = [AdmissionReply, ClaimReply?, ReadJobReply?];
type ClaimStep = ClaimRequest & { shard: number };

const claimPart = (reply: ClaimAndReadReply): ClaimReply => reply[0];
const admittedClaimPart = (reply: AdmitClaimAndReadReply): ClaimReply | undefined => reply[1];

/** What the reader claims, reads and admits through: the single node's stores, on the same client. */
export interface ClaimReaderStores {
  ledger: RedisLedgerStore;
  queue: BullmqJobQueue;
  /** Gives the admitting script its admission's keys and arguments, and admits a claim that holds on its own. */
  admissions: RedisAdmissionStore;
}

/**
 * A paid job's claim and the read of its job in one script (claim-and-read-16.lua) on a single Redis node,
 * where the job service otherwise sends the claim and the read as two commands: one command fewer on every
 * paid job, fresh or replayed (docs/decisions/claim-and-read.md). The caller's bearer admission can go first in
 * the same script (admit-claim-and-read-18.lua): one more fewer (docs/decisions/admission-in-the-claim.md). A
 * cluster keeps them apart: the subject's keys, the connection's and the queue's are in different slots.
 */
export class RedisClaimReader implements ClaimReader {
  private readonly script: LuaScript<ClaimAndReadReply>;
  private readonly admittingScript: LuaScript<AdmitClaimAndReadReply>;

  private readonly ledger: RedisLedgerStore;
  private readonly queue: BullmqJobQueue;
  private readonly admissions: RedisAdmissionStore;

  constructor(client: RedisClient, { ledger, queue, admissions }: ClaimReaderStores) {
    this.ledger = ledger;
    this.queue = queue;
    this.admissions = admissions;
    this.script = defineLuaScript(client, 'redis-claim-reader/claim-and-read', READ_JOB_CONSTANTS);
    this.admittingScript = defineLuaScript(client, 'redis-claim-reader/admit-claim-and-read', READ_JOB_CONSTANTS);
  }

  claimAndRead(request: ClaimStep): Promise<ClaimRead> {
    return this.withReadKeys(request, (keys) => this.claimWith(request, keys));
  }

  /**
   * The admission, then the claim and the read, in one script; a claim that holds credits is admitted first
   * on its own, as before its body was read: its hold is indexed before its claim, which a refused request
   * must not leave behind.
   */
  admitClaimAndRead(request: ClaimStep, admission: ClaimAdmissionRequest): Promise<AdmittedClaimRead> {
    if (request.hold) return this.admitThenClaim(request, admission);
    return this.withReadKeys(request, (keys) => this.admitAndClaimWith(request, admission, keys));
  }

  /** Calls `then` with the read's keys: at once once the shard's queue is open, with no turn spent waiting. */
  private withReadKeys<T>(request: ClaimStep, then: (keys: readonly string[]) => Promise<T>): Promise<T> {
    const readKeys = this.queue.readKeys(request.jobId, request.shard);
    return Array.isArray(readKeys) ? then(readKeys) : readKeys.then(then);
  }

  private async claimWith(request: ClaimStep, readKeys: readonly string[]): Promise<ClaimRead> {
    const { claim, reply } = await this.ledger.claimAlong(request, this.script, { keys: readKeys }, claimPart);
    return { claim: claimMade(claim), job: reply ? recordOfReadJob(request.jobId, reply[1]) : undefined };
  }

  private async admitAndClaimWith(
    request: ClaimStep,
    admission: ClaimAdmissionRequest,
    readKeys: readonly string[],
  ): Promise<AdmittedClaimRead> {
    const along = this.admissions.alongClaim(admission);
    const extras: ClaimExtras = { keys: [...readKeys, ...along.keys], args: along.args };
    const { claim, reply } = await this.ledger.claimAlong(request, this.admittingScript, extras, admittedClaimPart);
    // No grant goes this way (it holds), so the script always answered.
    const [answer, , job] = reply!;
    const admitted = admissionOf(answer);
    return claim ? { admission: admitted, read: { claim, job: recordOfReadJob(request.jobId, job!) } } : { admission: admitted };
  }

  private async admitThenClaim(request: ClaimStep, admission: ClaimAdmissionRequest): Promise<AdmittedClaimRead> {
    const admitted = await this.admissions.admitBearer(admission);
    if (admitted.outcome !== 'admitted' || admitted.window.count > admission.quota) return { admission: admitted };
    return { admission: admitted, read: await this.claimAndRead(request) };
  }
}
