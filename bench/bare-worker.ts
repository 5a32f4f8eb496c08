import { Worker } from 'bullmq';
import { closeRedisClient, createRedisClient } from '../shared/adapters/redis/redis-client';
import { loadRedisSettings } from '../shared/platform/config/redis-settings';
import { createLogger } from '../shared/platform/logging/logger';

// The worker baseline: a bare BullMQ Worker whose processor does nothing, on the queue the bench names.
// It has nothing of the connector but its connection: the same Redis variables and the same factory
// (`createRedisClient`, worker role, as the connector's worker), so the two drains differ only in what
// runs per job.
const problems: Array<{ name: string; reason: string }> = [];
const { connection } = loadRedisSettings(process.env, problems);
if (!connection || problems.length > 0) {
  process.stderr.write(`bare worker: no usable Redis settings (${problems.map((p) => p.name).join(', ') || 'none set'})\n`);
  process.exit(2);
}
const client = createRedisClient({
  connection,
  role: 'worker',
  connectionName: 'bench-bare-worker',
  commandTimeoutMs: 5000,
  logger: createLogger('warn', 'bench-bare-worker'),
});
const worker = new Worker(process.env.QUEUE_NAME ?? 'bare', async () => ({}), {
  connection: client,
  prefix: process.env.QUEUE_PREFIX ?? 'bare',
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 1),
});
worker.on('error', (error) => process.stderr.write(`${error.message}\n`));
void worker.waitUntilReady().then(() => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  void worker.close().finally(() => {
    void closeRedisClient(client).finally(() => process.exit(0));
  });
});
