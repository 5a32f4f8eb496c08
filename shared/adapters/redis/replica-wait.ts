import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { ServiceUnavailableError } from '../../platform/errors/problems';
import type { RedisClient } from './redis-client';
import { REDIS_RETRY_AFTER_SECONDS, unavailable } from './redis-guard';

/** How many replicas must confirm a write, and for how long to wait. */
export interface ReplicaWaitOptions {
  minReplicas: number;
  waitMs: number;
}

/**
 * Waits (Redis `WAIT`) until `minReplicas` replicas of each primary holding `keys` have every write made so
 * far on this process's connection to it, and rejects with a 503 when they have not within `waitMs`.
 *
 * `WAIT` counts the writes of the connection it is sent on: on one node or Sentinel that is the single
 * connection every request shares; on a cluster, the connection to the primary that serves the keys' slot,
 * found in the client's slot map. Several requests waiting at once each get the same answer for what they
 * wrote, so no write is acknowledged before it is replicated.
 */
export async function waitForReplicas(client: RedisClient, keys: readonly string[], options: ReplicaWaitOptions): Promise<void> {
  if (options.minReplicas <= 0) return;
  const nodes = client instanceof Cluster ? [...new Set(keys.map((key) => primaryFor(client, key)))] : [client];
  const acknowledged = await Promise.all(
    nodes.map((node) =>
      node === undefined
        ? Promise.reject(new Error('no primary known for the slot'))
        : (node.call('WAIT', options.minReplicas, options.waitMs) as Promise<number>),
    ),
  ).catch((error: unknown) => {
    throw unavailable(error);
  });
  if (acknowledged.some((count) => Number(count) < options.minReplicas)) {
    throw new ServiceUnavailableError(REDIS_RETRY_AFTER_SECONDS);
  }
}

/** The client's connection to the primary serving a key's slot, as its current slot map says. */
function primaryFor(cluster: Cluster, key: string): RedisClient | undefined {
  const owner = cluster.slots[calculateSlot(key)]?.[0];
  if (!owner) return undefined;
  return cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === owner);
}
