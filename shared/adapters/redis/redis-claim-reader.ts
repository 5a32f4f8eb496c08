import type { ClaimRead, ClaimReader } from '../../domain/jobs/claim-reader';
import type { ClaimRequest } from '../../domain/ledger/ledger-store';
import type { BullmqJobQueue } from './bullmq-job-queue';
import { READ_JOB_CONSTANTS, type ReadJobReply, recordOfReadJob } from './bullmq-job-record';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { ClaimReply, RedisLedgerStore } from './redis-ledger-store';

type ClaimAndReadReply = [ClaimReply, ReadJobReply];

const claimPart = (reply: ClaimAndReadReply): ClaimReply => reply[0];

/**
 * A paid job's claim and the read of its job in one script (claim-and-read-16.lua) on a single Redis node,
 * where the job service otherwise sends the claim and the read as two commands: one command fewer on every
 * paid job, fresh or replayed (docs/decisions/claim-and-read.md). A cluster keeps the two: the subject's keys
 * and the queue's are in different slots.
 */
export class RedisClaimReader implements ClaimReader {
  private readonly script: LuaScript<ClaimAndReadReply>;

  constructor(
    client: RedisClient,
    private readonly ledger: RedisLedgerStore,
    private readonly queue: BullmqJobQueue,
  ) {
    this.script = defineLuaScript(client, 'redis-claim-reader/claim-and-read', READ_JOB_CONSTANTS);
  }

  claimAndRead(request: ClaimRequest & { shard: number }): Promise<ClaimRead> {
    // The shard's queue is open after its first job: then its keys are at hand, with no turn spent waiting.
    const readKeys = this.queue.readKeys(request.jobId, request.shard);
    return Array.isArray(readKeys) ? this.claimWith(request, readKeys) : readKeys.then((keys) => this.claimWith(request, keys));
  }

  private async claimWith(request: ClaimRequest & { shard: number }, readKeys: readonly string[]): Promise<ClaimRead> {
    const { claim, reply } = await this.ledger.claimAlong(request, this.script, readKeys, claimPart);
    return { claim, job: reply ? recordOfReadJob(request.jobId, reply[1]) : undefined };
  }
}
