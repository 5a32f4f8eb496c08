import { expect } from 'chai';
import { newSubject } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';
import { resetConnectionsOn } from './support/resetting-port';

const PREFIX = 'outage-output:';
/** Failed reconnects each process's clients make before Redis comes back: an outage, not a blip. */
const FAILED_RECONNECTS = 3;

describe('what the built API and worker print through a Redis outage (private Redis, killed and restarted)', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let api: ApiUnderTest;
  let worker: ProcessUnderTest;
  const exits: Array<number | string> = [];

  before(async () => {
    redis = await startRedis();
    const env = redisEnv(redis.url, PREFIX, { PLACEHOLDER_JOB_MS: '20' });
    [api, worker] = await Promise.all([startApiProcess(env), startWorkerProcess(env)]);
    // No job yet: the API's BullMQ queue, which opens on the first one, would add its own 'error' listener to
    // the client and so hide a client that lacks the product's.
    const { token } = await api.link(newSubject());

    await redis.kill();
    expect((await api.call('GET', '/v1/me', { token })).status).to.equal(503);
    // The killed server's port refuses; it then resets every connection instead, so that the reconnect
    // attempts (each an 'error' event on a client, which ioredis prints when a client has no listener) can
    // be counted, per client name, until each process has made several.
    const port = await resetConnectionsOn(redis.port);
    try {
      await waitFor(() => ['api', 'worker'].every((role) => port.attempts(`${PREFIX}${role}`) >= FAILED_RECONNECTS), {
        timeoutMs: 20_000,
        what: `${FAILED_RECONNECTS} failed reconnects from the API's and the worker's clients`,
      });
    } finally {
      await port.close();
    }

    await redis.restart();
    await waitFor(async () => (await api.call('GET', '/readyz')).status === 200, { timeoutMs: 15_000, what: 'the API to be ready again' });
    const again = await api.link(newSubject());
    const after = await submitPrompt(api, again.token, 'after');
    expect(after.status, after.text).to.equal(202);
    await pollJob(api, again.token, after.body.id, (job) => job.status === 'succeeded');
    exits.push(await api.stop(), await worker.stop());
  });
  after(async () => {
    await Promise.all([api?.kill(), worker?.kill()]);
    await redis?.stop();
  });

  it('both exit 0 on SIGTERM, having written nothing to stderr', () => {
    expect(exits).to.deep.equal([0, 0]);
    expect(api.proc.stderr(), 'API stderr').to.equal('');
    expect(worker.proc.stderr(), 'worker stderr').to.equal('');
  });

  it('stdout holds only JSON log lines: no unhandled-error line from ioredis and no bare stack-trace line', () => {
    for (const [name, proc] of [
      ['API', api],
      ['worker', worker],
    ] as const) {
      const lines = proc.proc
        .stdout()
        .split('\n')
        .filter((line) => line !== '');
      expect(lines.length, `${name} log lines`).to.be.greaterThan(2);
      expect(
        lines.filter((line) => !line.startsWith('{')),
        `${name} lines that are not JSON`,
      ).to.deep.equal([]);
      expect(
        lines.filter((line) => line.includes('Unhandled error event')),
        name,
      ).to.deep.equal([]);
    }
  });

  it('each Redis client logs the outage once, as a warning without a stack, and its return once', () => {
    for (const [name, proc] of [
      ['API', api],
      ['worker', worker],
    ] as const) {
      const redisLines = proc.logLines().filter((line) => typeof line.redis_client === 'string');
      const clients = [...new Set(redisLines.map((line) => line.redis_client))];
      expect(clients, `${name} Redis clients`).to.have.length.greaterThan(0);
      for (const client of clients) {
        const messages = redisLines.filter((line) => line.redis_client === client).map((line) => line.msg);
        // Connected at start, lost once (whichever of the error or the close came first), connected again:
        // never a line per refused reconnect.
        expect(messages, `${name} ${String(client)}`).to.have.length(3);
        expect(messages[1], `${name} ${String(client)}`).to.be.oneOf(['redis connection error', 'redis connection lost; reconnecting']);
        expect([messages[0], messages[2]], `${name} ${String(client)}`).to.deep.equal(['redis connected', 'redis connected']);
      }
      for (const line of redisLines) {
        expect(JSON.stringify(line), `${name}: a Redis line with a stack`).to.not.include('stack');
        if (line.msg !== 'redis connected') expect(line.level, `${name}: ${String(line.msg)}`).to.equal(40);
      }
    }
  });
});
