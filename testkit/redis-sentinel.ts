import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataNodeLines, infoFields, launchRedis, onFreePorts, redisCommand, type RedisAccess, type RedisProcess } from './redis-process';
import { makeCertificates, tlsLines } from './test-certificates';
import { waitFor } from './wait-for';

/** A private Sentinel set on 127.0.0.1: a primary, its replica, and three sentinels watching them. */
export interface TestRedisSentinelSet {
  /** The monitored primary's name (`REDIS_SENTINEL_NAME`). */
  readonly name: string;
  /** `127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3`, the form `REDIS_SENTINELS` takes. */
  readonly sentinels: string;
  readonly sentinelPorts: readonly number[];
  /** The data nodes' ports: the first primary, then its replica. */
  readonly dataPorts: readonly number[];
  /** Credentials (and CA) of the data nodes. */
  readonly access: RedisAccess;
  /** The password the sentinels require, if any (`REDIS_SENTINEL_PASSWORD`). */
  readonly sentinelPassword: string | undefined;
  readonly caFile: string | undefined;
  /** The primary's port as a live sentinel reports it (`SENTINEL get-master-addr-by-name`). */
  primaryPort(): Promise<number>;
  /** SIGKILLs the current primary; resolves with its port and the time of the kill. */
  killPrimary(): Promise<{ port: number; killedAt: number }>;
  /**
   * Waits until every sentinel names another node than the killed one and that node says it is a primary;
   * resolves with its port and when that was first seen.
   */
  waitForPromotion(timeoutMs?: number): Promise<{ port: number; promotedAt: number }>;
  /**
   * Starts the killed node again (empty) as a replica of the current primary, and waits until it has synced
   * and every sentinel counts it as a healthy replica.
   */
  restartKilled(): Promise<void>;
  /** Kills every process it started and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts a primary and a replica (`replicaof`), waits for the replica's first sync, then three
 * `redis-server --sentinel` (quorum 2, down after 1 s, failover timeout 3 s), and resolves once each sentinel
 * knows the replica and the two other sentinels, so that a failover can start as soon as the primary dies.
 * `username`/`password` put an ACL user on the data nodes (the sentinels use it too); `sentinelPassword`
 * makes the sentinels require a password; `tls` makes every process speak only TLS.
 */
export async function startRedisSentinelSet(
  options: { username?: string; password?: string; sentinelPassword?: string; tls?: boolean } = {},
): Promise<TestRedisSentinelSet> {
  const name = 'connector-primary';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-test-sentinel-'));
  const certs = options.tls ? makeCertificates(dir) : undefined;
  const access: RedisAccess = { username: options.username, password: options.password, ca: certs?.ca };
  const sentinelAccess: RedisAccess = { password: options.sentinelPassword, ca: certs?.ca };
  const processes: RedisProcess[] = [];
  /** Starts one process on a free port (another one if someone takes it first) and keeps it for `stop`. */
  const launch = (make: (port: number) => Parameters<typeof launchRedis>[0]): Promise<RedisProcess> =>
    onFreePorts(1, ([port]) => launchRedis(make(port))).then((node) => {
      processes.push(node);
      return node;
    });
  let primaryPort = 0;
  let replicaPort = 0;
  let sentinelPorts: number[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(processes.map((node) => node.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  const tls = certs ? tlsLines(certs) : [];

  try {
    primaryPort = (
      await launch((port) => ({
        port,
        dir: path.join(dir, `node-${port}`),
        access,
        tls: Boolean(certs),
        lines: [...dataNodeLines(access), ...tls],
      }))
    ).port;
    replicaPort = (
      await launch((port) => ({
        port,
        dir: path.join(dir, `node-${port}`),
        access,
        tls: Boolean(certs),
        lines: [...dataNodeLines(access), ...tls, `replicaof 127.0.0.1 ${primaryPort}`],
      }))
    ).port;
    await waitFor(
      async () => {
        const info = infoFields(await redisCommand(replicaPort, access, ['INFO', 'replication']));
        return info.master_link_status === 'up' && info.master_sync_in_progress === '0';
      },
      { what: 'the replica to finish its first sync' },
    );

    const sentinelLines = [
      'sentinel resolve-hostnames no',
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 3000`,
      `sentinel parallel-syncs ${name} 1`,
      ...(access.username ? [`sentinel auth-user ${name} ${access.username}`] : []),
      ...(access.password !== undefined ? [`sentinel auth-pass ${name} ${access.password}`] : []),
      // A sentinel also presents this password to the other sentinels.
      ...(options.sentinelPassword !== undefined ? [`requirepass ${options.sentinelPassword}`] : []),
      ...tls,
    ];
    const sentinels = await Promise.all(
      [1, 2, 3].map(() =>
        launch((port) => ({
          port,
          dir: path.join(dir, `sentinel-${port}`),
          access: sentinelAccess,
          tls: Boolean(certs),
          sentinel: true,
          lines: sentinelLines,
        })),
      ),
    );
    sentinelPorts = sentinels.map((sentinel) => sentinel.port);
    await waitFor(() => sentinelsReady(sentinelPorts, sentinelAccess, name, 1), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'every sentinel to know the replica and the two other sentinels',
    });
  } catch (error) {
    const logs = processes.map((node) => `--- ${node.port}\n${node.log().slice(-1500)}`).join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }

  const sentinelProcesses = processes.filter((node) => sentinelPorts.includes(node.port));
  const askPrimary = async (port: number): Promise<number> => {
    const [, reported] = (await redisCommand(port, sentinelAccess, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name])) as [string, string];
    return Number(reported);
  };
  const primaryPortNow = async (): Promise<number> => {
    const live = sentinelProcesses.find((sentinel) => sentinel.alive());
    if (!live) throw new Error('no sentinel is alive');
    return askPrimary(live.port);
  };
  let killedPort: number | undefined;

  return {
    name,
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    sentinelPorts,
    dataPorts: [primaryPort, replicaPort],
    access,
    sentinelPassword: options.sentinelPassword,
    caFile: certs?.caFile,
    primaryPort: primaryPortNow,
    killPrimary: async () => {
      const port = await primaryPortNow();
      const node = processes.find((candidate) => candidate.port === port);
      if (!node) throw new Error(`the sentinels name ${port}, which this set did not start`);
      killedPort = port;
      await node.kill();
      return { port, killedAt: Date.now() };
    },
    waitForPromotion: async (timeoutMs = 30_000) => {
      if (killedPort === undefined) throw new Error('no primary was killed through killPrimary');
      const dead = killedPort;
      return waitFor(
        async () => {
          const reported = await Promise.all(
            sentinelProcesses.filter((sentinel) => sentinel.alive()).map((sentinel) => askPrimary(sentinel.port)),
          );
          const port = reported[0];
          if (port === dead || reported.some((other) => other !== port)) return undefined;
          const info = infoFields(await redisCommand(port, access, ['INFO', 'replication']));
          return info.role === 'master' ? { port, promotedAt: Date.now() } : undefined;
        },
        { timeoutMs, intervalMs: 50, what: `a sentinel-promoted primary in place of ${dead}` },
      );
    },
    restartKilled: async () => {
      if (killedPort === undefined) throw new Error('no primary was killed through killPrimary');
      const node = processes.find((candidate) => candidate.port === killedPort)!;
      const primary = await primaryPortNow();
      await node.restart([`replicaof 127.0.0.1 ${primary}`]);
      await waitFor(
        async () => {
          const info = infoFields(await redisCommand(node.port, access, ['INFO', 'replication']));
          return (
            info.master_link_status === 'up' &&
            info.master_sync_in_progress === '0' &&
            (await sentinelsReady(sentinelPorts, sentinelAccess, name, 1))
          );
        },
        { timeoutMs: 30_000, intervalMs: 100, what: `the node on ${node.port} to serve again as a replica` },
      );
      killedPort = undefined;
    },
    stop,
  };
}

/**
 * Whether every sentinel sees the primary healthy, the two other sentinels, and `replicas` replicas, all
 * connected to the primary.
 */
async function sentinelsReady(ports: readonly number[], access: RedisAccess, name: string, replicas: number): Promise<boolean> {
  for (const port of ports) {
    const master = pairs(await redisCommand(port, access, ['SENTINEL', 'MASTER', name]));
    if (master['num-other-sentinels'] !== '2' || master['num-slaves'] !== String(replicas) || master.flags !== 'master') return false;
    const listed = (await redisCommand(port, access, ['SENTINEL', 'REPLICAS', name])) as unknown[];
    if (listed.map(pairs).some((replica) => replica.flags !== 'slave' || replica['master-link-status'] !== 'ok')) return false;
  }
  return true;
}

/** A flat `[key, value, key, value, …]` reply as an object. */
function pairs(reply: unknown): Record<string, string> {
  const list = reply as string[];
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]] = list[i + 1];
  return out;
}
