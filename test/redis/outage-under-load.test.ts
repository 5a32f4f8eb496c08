import { expect } from 'chai';
import { newKey, newSubject } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { measurement } from '../support/measurement';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const CLIENTS = 10;
/** Statuses a client may see while Redis is away; anything else (another 5xx, a reset) is a fault. */
const ALLOWED = new Set([200, 202, 429, 503]);

/** What the client fleet saw, every outcome counted. */
interface FleetOutcome {
  statuses: Record<number, number>;
  errors: Record<string, number>;
  /** Job ids answered 202, once each. */
  accepted: Set<string>;
  /** When each status was last seen (for recovery). */
  lastSeen: Record<number, number>;
}

/**
 * A fleet of well-behaved clients: each submits a paid job under an idempotency key and reads `/v1/me`, over
 * and over; after a 503 or 429 it retries the same key (as clients must), and it takes a new key only once
 * the job was accepted. Asked to stop, a client still finishes its pending key, so that every charge has its
 * accepted job. Bounded by `deadline`.
 */
function clientFleet(
  api: ApiUnderTest,
  token: string,
  deadline: number,
): { outcome: FleetOutcome; stop(): void; finished: Promise<FleetOutcome> } {
  const outcome: FleetOutcome = { statuses: {}, errors: {}, accepted: new Set(), lastSeen: {} };
  let stopping = false;
  const record = (status: number): void => {
    outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
    outcome.lastSeen[status] = Date.now();
  };
  const send = async (path: string, init: RequestInit): Promise<{ status: number; text: string } | undefined> => {
    try {
      const res = await fetch(`${api.baseUrl}${path}`, init);
      const text = await res.text();
      record(res.status);
      return { status: res.status, text };
    } catch (error) {
      const code = ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message) || 'unknown';
      outcome.errors[code] = (outcome.errors[code] ?? 0) + 1;
      return undefined;
    }
  };
  const client = async (): Promise<void> => {
    let pendingKey: string | undefined;
    while (Date.now() < deadline && (!stopping || pendingKey)) {
      pendingKey ??= newKey();
      const created = await send('/v1/jobs', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': pendingKey },
        body: JSON.stringify({ input: { prompt: 'through the outage' } }),
      });
      if (created?.status === 202) {
        outcome.accepted.add((JSON.parse(created.text) as { id: string }).id);
        pendingKey = undefined;
      }
      await send('/v1/me', { headers: { authorization: `Bearer ${token}` } });
    }
  };
  const finished = Promise.all(Array.from({ length: CLIENTS }, client)).then(() => outcome);
  return { outcome, stop: () => (stopping = true), finished };
}

describe('Redis killed and restarted under load (built API and worker, durable private Redis)', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let api: ApiUnderTest;
  let worker: ProcessUnderTest;

  before(async () => {
    redis = await startRedis({ durable: true });
    // A short command timeout keeps the outage's 503s quick; a short lock lets a job whose completion was cut
    // by the outage be retaken in seconds.
    const env = redisEnv(redis.url, 'outage-load:', {
      PLACEHOLDER_JOB_MS: '50',
      REDIS_COMMAND_TIMEOUT_MS: '500',
      JOB_LOCK_MS: '2000',
      JOB_STALLED_INTERVAL_MS: '1000',
    });
    [api, worker] = await Promise.all([startApiProcess(env), startWorkerProcess(env)]);
    await waitFor(() => api.call('GET', '/readyz').then((r) => r.status === 200), { what: 'the API to be ready' });
  });
  after(async () => {
    await Promise.all([api?.kill(), worker?.kill()]);
    await redis?.stop();
  });

  it('answers only 2xx, 429 or 503 meanwhile (no reset), recovers by itself, and every accepted job succeeds, charged once', async () => {
    const { token } = await api.link(newSubject());
    const fleet = clientFleet(api, token, Date.now() + 90_000);
    await waitFor(() => fleet.outcome.accepted.size >= 20, { timeoutMs: 20_000, what: 'jobs accepted before the outage' });

    await redis.kill();
    const killedAt = Date.now();
    await waitFor(() => (fleet.outcome.lastSeen[503] ?? 0) > killedAt && (fleet.outcome.statuses[503] ?? 0) >= 2 * CLIENTS, {
      timeoutMs: 20_000,
      what: '503s during the outage',
    });
    const acceptedBefore = fleet.outcome.accepted.size;

    await redis.restart();
    const restartedAt = Date.now();
    await waitFor(() => fleet.outcome.accepted.size >= acceptedBefore + 20, {
      timeoutMs: 30_000,
      what: 'jobs accepted again after the restart',
    });
    const recoveredMs = Date.now() - restartedAt;
    fleet.stop();
    const outcome = await fleet.finished;
    measurement(
      `      ${JSON.stringify(outcome.statuses)}; ${outcome.accepted.size} jobs accepted; accepting again ${recoveredMs} ms after the restart`,
    );

    expect(outcome.errors, 'requests without an answer').to.deep.equal({});
    expect(
      Object.keys(outcome.statuses)
        .map(Number)
        .filter((status) => !ALLOWED.has(status)),
      'statuses other than 2xx/429/503',
    ).to.deep.equal([]);
    expect(outcome.statuses[503], 'the outage was seen').to.be.greaterThan(0);

    for (const id of outcome.accepted) {
      const done = await pollJob(api, token, id, (job) => job.status === 'succeeded' || job.status === 'failed', 30_000);
      expect(done.status, `job ${id}`).to.equal('succeeded');
    }
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.body.usage, 'one charge per accepted job').to.deep.equal({
      jobs_charged: outcome.accepted.size,
      credits_spent: outcome.accepted.size,
      credits_refunded: 0,
    });
    expect(worker.proc.child.exitCode, 'the worker kept running').to.equal(null);
  });
});
