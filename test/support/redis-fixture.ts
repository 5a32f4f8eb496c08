import Redis from 'ioredis';
import pino from 'pino';
import { BullmqJobQueue, type BullmqJobQueueOptions } from '../../shared/adapters/redis/bullmq-job-queue';
import type { RedisGuard } from '../../shared/adapters/redis/redis-guard';
import type { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { openRedisSession } from '../../shared/adapters/redis/redis-session';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

/** A silent logger: store tests assert on behaviour, not on log lines. */
export const quietLogger = pino({ level: 'silent' });

/** A fail-fast client on a test Redis, as the API builds it, and the helpers the stores need. */
export interface StoreClient {
  client: Redis;
  keys: RedisKeys;
  guard: RedisGuard;
  metrics: Metrics;
  close(): Promise<void>;
}

/** Opens the API's session (a commands-role client) with its own metrics, and waits until it is ready. */
export async function connectStoreClient(
  url: string,
  prefix: string,
  { commandTimeoutMs = 1000, waitReady = true } = {},
): Promise<StoreClient> {
  const metrics = new Metrics({ defaultMetrics: false });
  const config = { redis: singleNodeConnection(url), redisKeyPrefix: prefix, redisCommandTimeoutMs: commandTimeoutMs };
  const { client, keys, guard } = openRedisSession(config, 'api', quietLogger, metrics);
  if (waitReady) await waitFor(() => client.status === 'ready', { what: 'the redis client to be ready' });
  return {
    client: client as Redis,
    keys,
    guard,
    metrics,
    close: async () => client.disconnect(),
  };
}

/**
 * The API's job queue on a test store's client: silent, acknowledging without waiting for replicas, one shard
 * and an hour's retention unless `options` says otherwise. Each suite names the retries its jobs need.
 */
export function queueOn(
  { client, keys, guard }: { client: ConstructorParameters<typeof BullmqJobQueue>[0]; keys: RedisKeys; guard: RedisGuard },
  options: Pick<BullmqJobQueueOptions, 'attempts' | 'backoffMs'> & Partial<BullmqJobQueueOptions>,
): BullmqJobQueue {
  return new BullmqJobQueue(client, keys, guard, {
    retentionSeconds: 3600,
    logger: quietLogger,
    shards: 1,
    durability: { minReplicas: 0, waitMs: 500 },
    ...options,
  });
}

/** Reads one metric's current value from a registry (first series when labels are not given). */
export async function metricValue(metrics: Metrics, name: string): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  return values[0]?.value ?? 0;
}

/** A private redis-server with two clients on it and one store per client, filled in by mocha hooks. */
export interface TwoClientStores<S> {
  redis: TestRedis;
  a: StoreClient;
  b: StoreClient;
  storeA: S;
  storeB: S;
}

/**
 * Registers `before`/`after` hooks that start a private redis-server, connect two clients (as two replicas
 * would) and build one store on each; the returned object is filled in once the hooks have run.
 */
export function twoClientStores<S>(prefix: string, make: (client: StoreClient) => S): TwoClientStores<S> {
  const t = {} as TwoClientStores<S>;
  before(async () => {
    t.redis = await startRedis();
    t.a = await connectStoreClient(t.redis.url, prefix);
    t.b = await connectStoreClient(t.redis.url, prefix);
    t.storeA = make(t.a);
    t.storeB = make(t.b);
  });
  after(async () => {
    await t.a?.close();
    await t.b?.close();
    await t.redis?.stop();
  });
  return t;
}

/** Calls per command since the server started (script-internal commands included), from INFO commandstats. */
export async function commandCalls(client: Redis): Promise<Record<string, number>> {
  const info = String(await client.info('commandstats'));
  return Object.fromEntries([...info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)].map(([, name, calls]) => [name, Number(calls)]));
}

/**
 * Watches every command the server receives (Redis MONITOR) and hands each one's arguments to `onCommand`,
 * the command name lower-cased; resolves once watching, with a function that stops it.
 */
export async function monitorCommands(url: string, onCommand: (args: string[]) => void): Promise<() => Promise<void>> {
  const client = new Redis(url);
  const monitor = await client.monitor();
  monitor.on('monitor', (_time: string, args: string[]) => onCommand([String(args[0]).toLowerCase(), ...args.slice(1).map(String)]));
  return async () => {
    monitor.disconnect();
    client.disconnect();
  };
}
