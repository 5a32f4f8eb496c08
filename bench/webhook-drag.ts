import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { RedisKeys } from '../shared/adapters/redis/redis-keys';
import { singleNodeConnection } from '../shared/platform/config/redis-settings';
import { setLogDir } from '../test/testkit/node-process';
import { round, startRedis } from './bench-processes';
import { benchClient, closeBenchClients } from './bench-redis';
import { OUT, SMOKE } from './bench-settings';
import { link, oneNodeEnv, startApi, startWorker, stopAll, track } from './connector-processes';
import { type LatencyFigure, openQueue, submitToSucceeded } from './job-load';
import { mergeResults } from './results-file';

// `npm run bench:webhooks` (`--smoke` for the short version the tests run): does a webhook receiver that never
// answers slow paid jobs down? Three connector pairs (API + worker) on one Redis, the same build and settings,
// each sending its events to a receiver of its own: two answer 204 at once, the third accepts the connection
// and never answers (every delivery waits out its 10 s timeout, then is retried). All take the same open-loop
// load of fresh paid jobs at the same moment, round after round. The figure is dead / live per round, and
// control / live (two healthy pairs) is the noise it is read against.

const ROUNDS = SMOKE ? 1 : 4;
const RATE = SMOKE ? 20 : 60;
const SECONDS = SMOKE ? 2 : 8;

/** A receiver on loopback: `answer` false accepts every request and never answers it. */
async function receiver(answer: boolean): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    req.resume();
    if (answer) res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, requests: () => requests };
}

async function main(): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-webhook-drag-'));
  setLogDir(logDir);
  const redis = await track(startRedis());
  const client = await benchClient(singleNodeConnection(redis.url), 'webhook-drag');
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const pairs = await Promise.all(
    (['live', 'control', 'dead'] as const).map(async (name) => {
      const hook = await receiver(name !== 'dead');
      const env = { ...oneNodeEnv(redis.url, `${name}:`), WEBHOOK_URL: hook.url, WEBHOOK_SECRET: secret, WEBHOOK_ALLOW_PRIVATE: 'true' };
      const api = await startApi(`api-${name}`, env);
      await startWorker(env, `worker-${name}`);
      const queue = await openQueue(client, 'jobs', `${name}:bull`);
      const token = (await link(api.base)).authorization.slice('Bearer '.length);
      return { name, hook, api, queue, token, rounds: [] as LatencyFigure[] };
    }),
  );
  for (let i = 1; i <= ROUNDS; i++) {
    const figures = await Promise.all(
      pairs.map((pair) =>
        submitToSucceeded({ baseUrl: pair.api.base, token: pair.token, ratePerSecond: RATE, seconds: SECONDS, queue: pair.queue }),
      ),
    );
    figures.forEach((figure, p) => {
      pairs[p].rounds.push(figure);
    });
    process.stdout.write(
      `round ${i}: ${figures.map((f, p) => `${pairs[p].name} submit p99 ${f.submitMs.p99} ms, to succeeded p99 ${f.submitToSucceededMs.p99} ms`).join('; ')}\n`,
    );
  }
  const [live, control, dead] = pairs;
  const webhooks = await openQueue(client, new RedisKeys('').webhookQueueName, 'dead:bull');
  const unsent = await webhooks.getJobCounts('waiting', 'delayed', 'active');
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const ratio = (other: typeof live, pick: (f: LatencyFigure) => number) =>
    round(median(live.rounds.map((f, i) => pick(other.rounds[i]) / pick(f))), 2);
  const ratios = (other: typeof live) => ({
    submitP50: ratio(other, (f) => f.submitMs.p50),
    submitP99: ratio(other, (f) => f.submitMs.p99),
    toSucceededP50: ratio(other, (f) => f.submitToSucceededMs.p50),
    toSucceededP99: ratio(other, (f) => f.submitToSucceededMs.p99),
  });
  const result = {
    measuredAt: new Date().toISOString(),
    loadAverage: os.loadavg().map((n) => round(n, 2)),
    rounds: ROUNDS,
    ratePerSecond: RATE,
    seconds: SECONDS,
    live: live.rounds,
    control: control.rounds,
    dead: dead.rounds,
    deadOverLive: ratios(dead),
    controlOverLive: ratios(control),
    deadReceiver: {
      requestsHeldOpen: dead.hook.requests(),
      deliveriesNotYetDone: Object.values(unsent).reduce((sum, n) => sum + Number(n), 0),
    },
    liveReceiver: { requestsAnswered: live.hook.requests() },
  };
  process.stdout.write(
    `median of rounds: dead / live ${JSON.stringify(result.deadOverLive)}; control / live ${JSON.stringify(result.controlOverLive)}; ${JSON.stringify(result.deadReceiver)}\n`,
  );
  mergeResults(OUT, { webhookDrag: result });
  await webhooks.close();
  for (const pair of pairs) {
    await pair.queue.close();
    pair.hook.server.closeAllConnections();
    pair.hook.server.close();
  }
  await closeBenchClients();
  await stopAll();
  rmSync(logDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`webhook bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    void stopAll().finally(() => process.exit(1));
  },
);
