import { Worker } from 'bullmq';
import Redis from 'ioredis';

// The worker baseline: a bare BullMQ Worker whose processor does nothing, on the queue the bench names.
// It has what BullMQ itself needs (a connection whose commands wait) and nothing of the connector.
const connection = new Redis(process.env.REDIS_URL ?? '', { maxRetriesPerRequest: null });
const worker = new Worker(process.env.QUEUE_NAME ?? 'bare', async () => ({}), {
  connection,
  prefix: process.env.QUEUE_PREFIX ?? 'bare',
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? 1),
});
worker.on('error', (error) => process.stderr.write(`${error.message}\n`));
void worker.waitUntilReady().then(() => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  void worker.close().finally(() => {
    connection.disconnect();
    process.exit(0);
  });
});
