import { Queue } from 'bullmq';
import express from 'express';
import { writeJson } from '../api/http/write-json';
import { closeRedisClient, createRedisClient } from '../shared/adapters/redis/redis-client';
import { loadRedisSettings } from '../shared/platform/config/redis-settings';
import { createLogger } from '../shared/platform/logging/logger';

// The floor routes of `bench:floor`: the least a connector request must do, and nothing else. `GET /read`:
// one Redis round trip and one access line; `POST /replay`: a parsed JSON body, the two round trips of a
// replayed paid job (admission, the claim that finds the job) and one access line; `POST /job`: the same, then
// BullMQ's `Queue.add`, as a fresh paid job. Express and its settings, the Redis connection (the connector's
// factory, the API's role), the logger (one synchronous `write` per line) and the answer's writing
// (`writeJson`) are the API's own, so a route here differs from the API's only in what else runs per request.
const problems: Array<{ name: string; reason: string }> = [];
const { connection } = loadRedisSettings(process.env, problems);
if (!connection || problems.length > 0) {
  process.stderr.write(`floor server: no usable Redis settings (${problems.map((p) => p.name).join(', ') || 'none set'})\n`);
  process.exit(2);
}
const logger = createLogger('info', 'bench-floor');
const client = createRedisClient({ connection, role: 'commands', connectionName: 'bench-floor', commandTimeoutMs: 5000, logger });
const queue = new Queue('floor', { connection: client, prefix: 'bench-floor' });
// As the API's access lines: a child without the redaction paths, which a five-field line never needs.
const access = logger.child({}, { redact: [] });

const app = express();
app.disable('x-powered-by');
app.set('etag', false);

function logged(route: string, status: number, started: bigint): void {
  const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
  access.info({ method: route === '/read' ? 'GET' : 'POST', route, status, duration_ms: durationMs }, 'request');
}

app.get('/read', async (_req, res) => {
  const started = process.hrtime.bigint();
  const value = await client.hget('bench-floor:hash', 'field');
  writeJson(res, { ok: true, value });
  logged('/read', 200, started);
});

app.post('/replay', express.json(), async (_req, res) => {
  const started = process.hrtime.bigint();
  await client.hget('bench-floor:hash', 'admission');
  await client.hget('bench-floor:hash', 'claim');
  writeJson(res, { id: 'floor-replay' });
  logged('/replay', 200, started);
});

let jobs = 0;
app.post('/job', express.json(), async (req, res) => {
  const started = process.hrtime.bigint();
  await client.hget('bench-floor:hash', 'admission');
  await client.hget('bench-floor:hash', 'claim');
  jobs += 1;
  const job = await queue.add('floor', req.body as Record<string, unknown>, { jobId: `floor-${process.pid}-${jobs}` });
  res.status(202);
  writeJson(res, { id: job.id });
  logged('/job', 202, started);
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as import('node:net').AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => {
    void queue.close().finally(() => void closeRedisClient(client).finally(() => process.exit(0)));
  });
});
