import { closeRedisClient, createRedisClient, type RedisClient } from '../shared/adapters/redis/redis-client';
import { type RedisConnection, singleNodeConnection } from '../shared/platform/config/redis-settings';
import { createLogger } from '../shared/platform/logging/logger';
import { waitUntil } from './bench-processes';

// The bench's own Redis connections (its queue handles, its counters, its per-node statistics) are made by
// the connector's factory, as every other process's are; only errors reach the bench's output (a deliberate close logs a warning).
const logger = createLogger('error', 'bench');
const opened: RedisClient[] = [];

/**
 * A client for the bench on `connection`, ready when returned. Worker role: its commands wait for the
 * connection instead of failing fast, as BullMQ's queue handles want, and nothing the bench asks is urgent.
 */
export async function benchClient(connection: RedisConnection, name: string): Promise<RedisClient> {
  const client = createRedisClient({ connection, role: 'worker', connectionName: `bench-${name}`, commandTimeoutMs: 10_000, logger });
  opened.push(client);
  await waitUntil(async () => client.status === 'ready', 15_000, `the bench's Redis client ${name}`);
  return client;
}

/** A bench client on the one node at `url` (a plain node, or one node of a cluster for its own figures). */
export function nodeClient(url: string, name: string): Promise<RedisClient> {
  return benchClient(singleNodeConnection(url), name);
}

/** Closes every client the bench opened. */
export async function closeBenchClients(): Promise<void> {
  await Promise.all(opened.splice(0).map((client) => closeRedisClient(client)));
}

/** Redis's count of processed commands (including the INFO that reads it). */
export async function commandsProcessed(redis: RedisClient): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? NaN);
}

/** What one Redis node had done by a moment of the run. */
export interface NodeSample {
  port: number;
  role: 'primary' | 'replica';
  /** Commands executed (script-internal ones included), the INFO calls that read these figures excluded. */
  commands: number;
  /** CPU time of the whole server process (user + system), in milliseconds, with microsecond precision. */
  cpuMs: number;
  keys: number;
  /** When the sample was taken (ms since the epoch). */
  at: number;
}

/** One node's share of the work between two samples. */
export interface NodeWork {
  port: number;
  role: 'primary' | 'replica';
  commands: number;
  cpuMs: number;
  /** Keys added (or removed, negative) between the samples. */
  keys: number;
  /** Wall time between the samples. */
  seconds: number;
}

/**
 * Samples nodes by `INFO commandstats cpu keyspace replication`: per-command counts (so the bench's own INFO
 * calls can be left out exactly) and the server's CPU from its own `getrusage`, which needs no access to its
 * process and is finer than /proc's 10 ms ticks.
 */
export class NodeMeter {
  constructor(private readonly nodes: ReadonlyArray<{ port: number; client: RedisClient }>) {}

  async sample(): Promise<NodeSample[]> {
    return Promise.all(
      this.nodes.map(async ({ port, client }) =>
        parseNodeInfo(port, String(await client.call('INFO', 'commandstats', 'cpu', 'keyspace', 'replication'))),
      ),
    );
  }

  /** Each node's work between two samples of this meter. */
  static between(before: readonly NodeSample[], after: readonly NodeSample[]): NodeWork[] {
    return after.map((node, i) => ({
      port: node.port,
      role: node.role,
      commands: node.commands - before[i].commands,
      cpuMs: node.cpuMs - before[i].cpuMs,
      keys: node.keys - before[i].keys,
      seconds: (node.at - before[i].at) / 1000,
    }));
  }
}

/** Reads one node's figures from an INFO answer. */
export function parseNodeInfo(port: number, info: string): NodeSample {
  let commands = 0;
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (match[1] !== 'info') commands += Number(match[2]);
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? NaN);
  const keys = Number(/^db0:keys=(\d+)/m.exec(info)?.[1] ?? 0);
  const role = /^role:slave/m.test(info) ? 'replica' : 'primary';
  return { port, role, commands, cpuMs: (field('used_cpu_user') + field('used_cpu_sys')) * 1000, keys, at: Date.now() };
}
