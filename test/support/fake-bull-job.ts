import type { RedisClient } from '../../shared/adapters/redis/redis-client';
import type { BullJobOf } from '../../worker/running-job';

/** What a fake BullMQ job of the paid-jobs queues is made of; every field has a first attempt's default. */
export interface FakeJobFields {
  id: string;
  attemptsMade: number;
  attemptsStarted: number;
  stalledCounter: number;
  processedOn: number;
  progress: unknown;
  maxAttempts: number;
}

/**
 * A BullMQ job as the worker's modules read it, without Redis: its progress updates and moves are written
 * down in `calls`, in order.
 */
export function fakeBullJob(fields: Partial<FakeJobFields> = {}) {
  const calls: string[] = [];
  const job = {
    id: fields.id ?? 'job_1',
    name: 'op',
    queueQualifiedName: 'bull:jobs',
    attemptsMade: fields.attemptsMade ?? 0,
    attemptsStarted: fields.attemptsStarted ?? 1,
    stalledCounter: fields.stalledCounter ?? 0,
    processedOn: fields.processedOn ?? Date.parse('2026-01-01T00:00:10.000Z'),
    progress: fields.progress ?? 0,
    opts: { attempts: fields.maxAttempts ?? 1 },
    data: { subject: 's', cost: 5, created_at: '2026-01-01T00:00:00.000Z', input: { prompt: 'hi' } },
    updateProgress: async (progress: unknown) => void calls.push(`progress ${JSON.stringify(progress)}`),
    moveToDelayed: async (at: number, token: string) => void calls.push(`delayed ${token} ${at > Date.now() - 1000}`),
  };
  return { job: job as unknown as BullJobOf, calls };
}

/** A client whose job hashes are plain maps: `hmget`, `hset`, `hexists` and `zadd` on them, each call written down. */
export function fakeHashClient(hashes: Record<string, Record<string, string>> = {}) {
  const calls: string[] = [];
  const client = {
    hmget: async (key: string, ...fields: string[]) => fields.map((field) => hashes[key]?.[field] ?? null),
    hexists: async (key: string, field: string) => (hashes[key]?.[field] === undefined ? 0 : 1),
    hset: async (key: string, ...pairs: Array<string | number>) => {
      calls.push(`hset ${key} ${pairs.filter((_, i) => i % 2 === 0).join(',')}`);
      hashes[key] ??= {};
      for (let i = 0; i < pairs.length; i += 2) hashes[key][String(pairs[i])] = String(pairs[i + 1]);
      return pairs.length / 2;
    },
    zadd: async (key: string, _score: number, member: string) => {
      calls.push(`zadd ${key} ${member}`);
      return 1;
    },
  };
  return { client: client as unknown as RedisClient, calls, hashes };
}
