import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { dataNodeLines, infoFields, launchRedis, onFreePorts, type RedisAccess, type RedisProcess, redisCommand } from './redis-process';
import { makeCertificates, type TestCertificates, tlsLines } from './test-certificates';
import { waitFor } from './wait-for';

const run = promisify(execFile);

/** One node as the cluster itself describes it (`CLUSTER NODES`). */
export interface ClusterNodeInfo {
  readonly id: string;
  readonly port: number;
  readonly role: 'primary' | 'replica';
  /** For a replica: the id of the primary it copies. */
  readonly primaryId: string | null;
  /** Flagged `fail` or `fail?` by the node asked. */
  readonly failing: boolean;
  /** Slot ranges served (primaries only), inclusive. */
  readonly slots: ReadonlyArray<readonly [number, number]>;
}

/** A private 6-node Redis Cluster (3 primaries, 3 replicas) on 127.0.0.1. */
export interface TestRedisCluster {
  /** `127.0.0.1:p1,…,127.0.0.1:p6`, the form `REDIS_CLUSTER_NODES` takes. */
  readonly seeds: string;
  readonly ports: readonly number[];
  /** The credentials and CA every node wants (empty when started without them). */
  readonly access: RedisAccess;
  /** PEM file of the CA when started with TLS (what `REDIS_TLS_CA_FILE` names). */
  readonly caFile: string | undefined;
  /** The cluster's current view, asked of a live node. */
  nodes(): Promise<ClusterNodeInfo[]>;
  primaryForSlot(slot: number): Promise<ClusterNodeInfo>;
  /** The primary that serves `key` now (hash tags honoured, by `CLUSTER KEYSLOT`). */
  primaryForKey(key: string): Promise<ClusterNodeInfo>;
  /** SIGKILLs the node on `port`; resolves with the time of the kill. */
  killNode(port: number): Promise<number>;
  /**
   * Waits until a replica of the killed primary on `killedPort` serves its slots as primary and every live
   * node says cluster_state:ok; resolves with the new primary's port and when that was first seen.
   */
  waitForPromotion(killedPort: number, timeoutMs?: number): Promise<{ port: number; promotedAt: number }>;
  /**
   * Starts a killed node again (empty, with its nodes.conf) and waits until it has rejoined as a replica,
   * finished its sync, and every node says cluster_state:ok with six nodes and none failing.
   */
  restartNode(port: number): Promise<void>;
  /** Kills every node it started and removes its directory. */
  stop(): Promise<void>;
}

/** Parses `CLUSTER NODES`. */
export function parseClusterNodes(text: string): ClusterNodeInfo[] {
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, address, flags, primary, , , , , ...slotFields] = line.trim().split(' ');
      const flagList = flags.split(',');
      const port = Number(address.split('@')[0].split(':').pop());
      const slots = slotFields
        .filter((field) => !field.startsWith('['))
        .map((field) => {
          const [from, to] = field.split('-').map(Number);
          return [from, to ?? from] as const;
        });
      return {
        id,
        port,
        role: flagList.includes('master') ? 'primary' : 'replica',
        primaryId: primary === '-' ? null : primary,
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        slots,
      };
    });
}

/**
 * Starts six `redis-server --cluster-enabled yes` nodes on free ports (private directories, no persistence,
 * noeviction, a short node timeout so a failover takes seconds), joins them with `redis-cli --cluster
 * create … --cluster-replicas 1`, and resolves once every node says cluster_state:ok, sees three primaries
 * with slots and three replicas, and every replica has finished its first sync. With `password`, every node
 * requires that ACL user (the default user is off unless it is the one named); with `tls`, nodes speak only
 * TLS (clients, replication and the cluster bus) with certificates made for the run.
 */
export async function startRedisCluster(options: ClusterOptions = {}): Promise<TestRedisCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-test-cluster-'));
  const certs = options.tls ? makeCertificates(dir) : undefined;
  const cluster: Cluster = {
    dir,
    certs,
    access: { username: options.username, password: options.password, ca: certs?.ca },
    ports: [],
    processes: new Map(),
    killed: new Map(),
  };
  try {
    const launched = await Promise.all(Array.from({ length: 6 }, () => launchNode(cluster, options.nodeTimeoutMs ?? 2000)));
    cluster.ports.push(...launched.map((node) => node.port));
    await joinNodes(cluster);
    await waitFor(() => healthy(cluster.ports, cluster.access), {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the cluster to be ok with every replica synced',
    });
  } catch (error) {
    const logs = [...cluster.processes.values()].map((node) => `--- ${node.port}\n${node.log().slice(-1500)}`).join('\n');
    await stopCluster(cluster);
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
  return clusterHandle(cluster);
}

type ClusterOptions = { username?: string; password?: string; tls?: boolean; nodeTimeoutMs?: number };

/** What a started cluster holds: its directory, credentials, nodes, and the nodes killed through `killNode`. */
interface Cluster {
  dir: string;
  certs: TestCertificates | undefined;
  access: RedisAccess;
  ports: number[];
  processes: Map<number, RedisProcess>;
  killed: Map<number, { id: string; replicaIds: string[] }>;
}

/**
 * Each node on a port of its own and its cluster bus on another (the default, port + 10000, may be taken or
 * past 65535); both chosen again if another process takes one first.
 */
function launchNode(cluster: Cluster, nodeTimeoutMs: number): Promise<RedisProcess> {
  const { dir, access, certs } = cluster;
  return onFreePorts(2, ([port, busPort]) =>
    launchRedis({
      port,
      dir: path.join(dir, `node-${port}`),
      access,
      tls: Boolean(certs),
      lines: [
        ...dataNodeLines(access),
        ...(certs ? [...tlsLines(certs), 'tls-cluster yes'] : []),
        'cluster-enabled yes',
        'cluster-config-file nodes.conf',
        `cluster-node-timeout ${nodeTimeoutMs}`,
        `cluster-port ${busPort}`,
        // A replica may take over however long ago it last heard from its primary, and replicas stay put.
        'cluster-replica-validity-factor 0',
        'cluster-allow-replica-migration no',
      ],
    }).then((node) => {
      cluster.processes.set(node.port, node);
      return node;
    }),
  );
}

/** `redis-cli --cluster create` over the six nodes, one replica per primary. */
async function joinNodes({ ports, access, certs }: Cluster): Promise<void> {
  const cliArgs = ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'];
  if (access.username) cliArgs.push('--user', access.username);
  if (certs) cliArgs.push('--tls', '--cacert', certs.caFile);
  // The password goes through the environment, not the command line (which other users can read).
  const env = { ...process.env, ...(access.password !== undefined ? { REDISCLI_AUTH: access.password } : {}) };
  await run('redis-cli', cliArgs, { env, timeout: 30_000 });
}

async function stopCluster(cluster: Cluster): Promise<void> {
  await Promise.all([...cluster.processes.values()].map((node) => node.kill()));
  rmSync(cluster.dir, { recursive: true, force: true });
}

function clusterHandle(cluster: Cluster): TestRedisCluster {
  const { ports, access } = cluster;
  const nodes = () => clusterNodes(cluster);
  const primaryForSlot = (slot: number) => livePrimaryForSlot(cluster, slot);
  return {
    seeds: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    access,
    caFile: cluster.certs?.caFile,
    nodes,
    primaryForSlot,
    primaryForKey: async (key) => primaryForSlot(Number(await redisCommand(anyLive(cluster), access, ['CLUSTER', 'KEYSLOT', key]))),
    killNode: (port) => killNode(cluster, port),
    waitForPromotion: (killedPort, timeoutMs = 30_000) => waitForPromotion(cluster, killedPort, timeoutMs),
    restartNode: (port) => restartNode(cluster, port),
    stop: () => stopCluster(cluster),
  };
}

function anyLive(cluster: Cluster): number {
  const node = [...cluster.processes.values()].find((candidate) => candidate.alive());
  if (!node) throw new Error('no cluster node is alive');
  return node.port;
}

async function clusterNodes(cluster: Cluster): Promise<ClusterNodeInfo[]> {
  return parseClusterNodes(String(await redisCommand(anyLive(cluster), cluster.access, ['CLUSTER', 'NODES'])));
}

async function livePrimaryForSlot(cluster: Cluster, slot: number): Promise<ClusterNodeInfo> {
  const owner = (await clusterNodes(cluster)).find(
    (node) => node.role === 'primary' && !node.failing && node.slots.some(([from, to]) => slot >= from && slot <= to),
  );
  if (!owner) throw new Error(`no live primary serves slot ${slot}`);
  return owner;
}

async function killNode(cluster: Cluster, port: number): Promise<number> {
  const node = cluster.processes.get(port);
  if (!node) throw new Error(`port ${port} is not a node of this cluster`);
  const before = await clusterNodes(cluster);
  const id = before.find((candidate) => candidate.port === port)?.id;
  if (!id) throw new Error(`the cluster does not know a node on ${port}`);
  cluster.killed.set(port, { id, replicaIds: before.filter((candidate) => candidate.primaryId === id).map((candidate) => candidate.id) });
  await node.kill();
  return Date.now();
}

async function waitForPromotion(cluster: Cluster, killedPort: number, timeoutMs: number): Promise<{ port: number; promotedAt: number }> {
  const dead = cluster.killed.get(killedPort);
  if (!dead) throw new Error(`the node on ${killedPort} was not killed through killNode`);
  return waitFor(
    async () => {
      const live = [...cluster.processes.values()].filter((node) => node.alive());
      const view = parseClusterNodes(String(await redisCommand(live[0].port, cluster.access, ['CLUSTER', 'NODES'])));
      const successor = view.find((node) => dead.replicaIds.includes(node.id) && node.role === 'primary' && node.slots.length > 0);
      if (!successor) return undefined;
      for (const node of live) {
        const info = infoFields(await redisCommand(node.port, cluster.access, ['CLUSTER', 'INFO']));
        if (info.cluster_state !== 'ok') return undefined;
      }
      return { port: successor.port, promotedAt: Date.now() };
    },
    { timeoutMs, intervalMs: 50, what: `a replica of the primary on ${killedPort} to take over` },
  );
}

async function restartNode(cluster: Cluster, port: number): Promise<void> {
  const node = cluster.processes.get(port);
  if (!node) throw new Error(`port ${port} is not a node of this cluster`);
  await node.restart();
  await waitFor(
    async () => {
      const me = infoFields(await redisCommand(port, cluster.access, ['INFO', 'replication']));
      return me.role === 'slave' && (await healthy(cluster.ports, cluster.access));
    },
    { timeoutMs: 30_000, intervalMs: 100, what: `the node on ${port} to rejoin as a synced replica` },
  );
}

/**
 * Whether every node says cluster_state:ok, knows six nodes, sees three primaries with slots and three
 * replicas with none failing, and (if a replica) has finished syncing.
 */
async function healthy(ports: readonly number[], access: RedisAccess): Promise<boolean> {
  for (const port of ports) {
    const info = infoFields(await redisCommand(port, access, ['CLUSTER', 'INFO']));
    if (info.cluster_state !== 'ok' || info.cluster_slots_ok !== '16384' || info.cluster_known_nodes !== '6') return false;
    const view = parseClusterNodes(String(await redisCommand(port, access, ['CLUSTER', 'NODES'])));
    if (view.some((node) => node.failing)) return false;
    const primaries = view.filter((node) => node.role === 'primary' && node.slots.length > 0);
    const replicas = view.filter((node) => node.role === 'replica');
    if (primaries.length !== 3 || replicas.length !== 3) return false;
    const me = infoFields(await redisCommand(port, access, ['INFO', 'replication']));
    if (me.role === 'slave' && (me.master_link_status !== 'up' || me.master_sync_in_progress !== '0')) return false;
  }
  return true;
}
