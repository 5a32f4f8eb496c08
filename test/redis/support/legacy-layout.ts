import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type Redis from 'ioredis';
import jwt from 'jsonwebtoken';
import { fingerprint } from '../../../shared/domain/jobs/idempotency';
import { deriveKeys } from '../../../shared/platform/secrets/derived-keys';

/** What the placeholder job of that release answered (the shape it still answers): a summary, counts, a digest. */
export const LEGACY_RESULT = { summary: 'done before the upgrade', characters: 22, words: 4, digest: '0123456789abcdef' };

/** What {@link writeLegacyLayout} stored, for the checks that follow an upgrade. */
export interface LegacyData {
  subject: string;
  connectionId: string;
  thingId: string;
  /** Idempotency key → job id, input and whether the job had finished before the upgrade. */
  jobs: Array<{ key: string; id: string; input: { prompt: string }; finished: boolean }>;
  /** A bearer token for the stored connection, signed the way every release signs them. */
  token(publicUrl: string): string;
}

const digest = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);

/**
 * Writes, with plain commands, the keys a one-node deployment of the release before Redis Sentinel and Cluster
 * support (commit 2dbd1e7) leaves behind after one `/v1/link`, one `POST /v1/things` and two paid jobs, one of
 * them finished: the job-id key, the connection and its subject index, the thing with its sequence, the
 * idempotency records, the usage and the day's spend, and the BullMQ jobs on the single `jobs` queue. The
 * upgrade test runs the current build on them; the same test passed against that release's own build.
 */
export async function writeLegacyLayout(client: Redis, prefix: string, connectorSecret: string): Promise<LegacyData> {
  const subject = `legacy-${randomBytes(4).toString('hex')}@example.com`;
  const root = `${prefix}subj:${digest(subject)}`;
  const now = Math.floor(Date.now() / 1000);
  const connectionId = `conn_${randomBytes(16).toString('base64url')}`;
  const keys = deriveKeys(connectorSecret);
  await client.set(`${prefix}job-id-key`, keys.jobIdKey.export().toString('base64url'), 'NX');
  const jobIdKey = Buffer.from((await client.get(`${prefix}job-id-key`))!, 'base64url');

  await client.hset(`${prefix}conn:${connectionId}`, 'subject', subject, 'issued_at', now, 'expires_at', now + 30 * 86_400, 'revoked', '0');
  await client.expireat(`${prefix}conn:${connectionId}`, now + 30 * 86_400);
  await client.sadd(`${root}:conns`, connectionId);
  await client.expire(`${root}:conns`, 30 * 86_400);

  const thingId = `thing_${randomBytes(16).toString('base64url')}`;
  const seq = await client.incr(`${root}:seq`);
  await client.zadd(
    `${root}:things`,
    seq,
    JSON.stringify({ id: thingId, name: 'from before the upgrade', notes: null, created_at: new Date().toISOString() }),
  );

  const day = new Date().toISOString().slice(0, 10);
  const jobs: LegacyData['jobs'] = [];
  // BullMQ never closes a connection it was handed: these are ended below, or they would outlive the server.
  const queueConnection = client.duplicate({ maxRetriesPerRequest: null });
  const queue = new Queue('jobs', { connection: queueConnection, prefix: `${prefix}bull` });
  for (const [key, finished] of [
    ['legacy-finished', true],
    ['legacy-queued', false],
  ] as const) {
    const id = `job_${createHmac('sha256', jobIdKey).update(`${subject}\n${key}`, 'utf8').digest('base64url').slice(0, 32)}`;
    const input = { prompt: `${key} prompt` };
    await client.set(`${prefix}idem:${id}`, fingerprint('createJob', input), 'EX', 86_400);
    await client.hincrby(`${root}:usage`, 'jobs_charged', 1);
    await client.hincrby(`${root}:usage`, 'credits_spent', 1);
    await client.zadd(`${root}:jobs`, await client.incr(`${root}:seq`), id);
    await client.incrby(`${root}:spent:${day}`, 1);
    await client.expire(`${root}:spent:${day}`, 2 * 86_400);
    const options = {
      jobId: id,
      attempts: 3,
      backoff: { type: 'exponential', delay: 10 },
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: 86_400 },
    };
    await queue.add('createJob', { subject, input, cost: 1, created_at: new Date().toISOString() }, options);
    if (finished) {
      const workerConnection = client.duplicate({ maxRetriesPerRequest: null });
      const worker = new Worker('jobs', async () => LEGACY_RESULT, {
        connection: workerConnection,
        prefix: `${prefix}bull`,
      });
      await new Promise<void>((resolve) => worker.on('completed', () => resolve()));
      await worker.close();
      workerConnection.disconnect();
    }
    jobs.push({ key, id, input, finished });
  }
  await queue.close();
  queueConnection.disconnect();
  return {
    subject,
    connectionId,
    thingId,
    jobs,
    token: (publicUrl) =>
      jwt.sign({ iat: now, exp: now + 3600 }, keys.tokenKey, {
        algorithm: 'HS256',
        issuer: publicUrl,
        audience: publicUrl,
        subject,
        jwtid: connectionId,
      }),
  };
}
