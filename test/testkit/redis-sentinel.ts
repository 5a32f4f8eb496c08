import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataNodeLines, infoFields, launchRedis, onFreePorts, type RedisAccess, type RedisProcess, redisCommand } from './redis-process';
import { makeCertificates, type TestCertificates, tlsLines } from './test-certificates';
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
export async function startRedisSentinelSet(options: SentinelOptions = {}): Promise<TestRedisSentinelSet> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-test-sentinel-'));
  const set = new SentinelSet(dir, options);
  try {
    await set.startDataNodes();
    await set.startSentinels();
  } catch (error) {
    const logs = set.processes.map((node) => `--- ${node.port}\n${node.log().slice(-1500)}`).join('\n');
    await set.stop();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
  return set.handle();
}

type SentinelOptions = { username?: string; password?: string; sentinelPassword?: string; tls?: boolean };

/** The processes of one Sentinel set, their credentials, and the primary killed through `killPrimary`. */
class SentinelSet {
  readonly name = 'connector-primary';
  readonly processes: RedisProcess[] = [];
  private readonly certs: TestCertificates | undefined;
  private readonly access: RedisAccess;
  private readonly sentinelAccess: RedisAccess;
  private readonly tls: string[];
  private primaryPort = 0;
  private replicaPort = 0;
  private sentinelPorts: number[] = [];
  private killedPort: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: SentinelOptions,
  ) {
    this.certs = options.tls ? makeCertificates(dir) : undefined;
    this.access = { username: options.username, password: options.password, ca: this.certs?.ca };
    this.sentinelAccess = { password: options.sentinelPassword, ca: this.certs?.ca };
    this.tls = this.certs ? tlsLines(this.certs) : [];
  }

  /** The primary, then its replica, waiting for the replica's first sync. */
  async startDataNodes(): Promise<void> {
    this.primaryPort = (await this.launchDataNode([])).port;
    this.replicaPort = (await this.launchDataNode([`replicaof 127.0.0.1 ${this.primaryPort}`])).port;
    await waitFor(
      async () => {
        const info = infoFields(await redisCommand(this.replicaPort, this.access, ['INFO', 'replication']));
        return info.master_link_status === 'up' && info.master_sync_in_progress === '0';
      },
      { what: 'the replica to finish its first sync' },
    );
  }

  /** Three sentinels, waiting until each knows the replica and the two others. */
  async startSentinels(): Promise<void> {
    const lines = this.sentinelLines();
    const sentinels = await Promise.all(
      [1, 2, 3].map(() =>
        this.launch((port) => ({
          port,
          dir: path.join(this.dir, `sentinel-${port}`),
          access: this.sentinelAccess,
          tls: Boolean(this.certs),
          sentinel: true,
          lines,
        })),
      ),
    );
    this.sentinelPorts = sentinels.map((sentinel) => sentinel.port);
    await waitFor(() => sentinelsReady(this.sentinelPorts, this.sentinelAccess, this.name, 1), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'every sentinel to know the replica and the two other sentinels',
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((node) => node.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  handle(): TestRedisSentinelSet {
    const { name, sentinelPorts, access } = this;
    return {
      name,
      sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      sentinelPorts,
      dataPorts: [this.primaryPort, this.replicaPort],
      access,
      sentinelPassword: this.options.sentinelPassword,
      caFile: this.certs?.caFile,
      primaryPort: () => this.primaryPortNow(),
      killPrimary: () => this.killPrimary(),
      waitForPromotion: (timeoutMs = 30_000) => this.waitForPromotion(timeoutMs),
      restartKilled: () => this.restartKilled(),
      stop: () => this.stop(),
    };
  }

  private sentinelLines(): string[] {
    const { name, access, options } = this;
    return [
      'sentinel resolve-hostnames no',
      `sentinel monitor ${name} 127.0.0.1 ${this.primaryPort} 2`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 3000`,
      `sentinel parallel-syncs ${name} 1`,
      ...(access.username ? [`sentinel auth-user ${name} ${access.username}`] : []),
      ...(access.password !== undefined ? [`sentinel auth-pass ${name} ${access.password}`] : []),
      // A sentinel also presents this password to the other sentinels.
      ...(options.sentinelPassword !== undefined ? [`requirepass ${options.sentinelPassword}`] : []),
      ...this.tls,
    ];
  }

  private launchDataNode(extra: string[]): Promise<RedisProcess> {
    return this.launch((port) => ({
      port,
      dir: path.join(this.dir, `node-${port}`),
      access: this.access,
      tls: Boolean(this.certs),
      lines: [...dataNodeLines(this.access), ...this.tls, ...extra],
    }));
  }

  /** Starts one process on a free port (another one if someone takes it first) and keeps it for `stop`. */
  private async launch(make: (port: number) => Parameters<typeof launchRedis>[0]): Promise<RedisProcess> {
    const node = await onFreePorts(1, ([port]) => launchRedis(make(port)));
    this.processes.push(node);
    return node;
  }

  private sentinelProcesses(): RedisProcess[] {
    return this.processes.filter((node) => this.sentinelPorts.includes(node.port));
  }

  private async askPrimary(port: number): Promise<number> {
    const [, reported] = (await redisCommand(port, this.sentinelAccess, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name])) as [
      string,
      string,
    ];
    return Number(reported);
  }

  private async primaryPortNow(): Promise<number> {
    const live = this.sentinelProcesses().find((sentinel) => sentinel.alive());
    if (!live) throw new Error('no sentinel is alive');
    return this.askPrimary(live.port);
  }

  private async killPrimary(): Promise<{ port: number; killedAt: number }> {
    const port = await this.primaryPortNow();
    const node = this.processes.find((candidate) => candidate.port === port);
    if (!node) throw new Error(`the sentinels name ${port}, which this set did not start`);
    this.killedPort = port;
    await node.kill();
    return { port, killedAt: Date.now() };
  }

  private async waitForPromotion(timeoutMs: number): Promise<{ port: number; promotedAt: number }> {
    if (this.killedPort === undefined) throw new Error('no primary was killed through killPrimary');
    const dead = this.killedPort;
    return waitFor(
      async () => {
        const reported = await Promise.all(
          this.sentinelProcesses()
            .filter((sentinel) => sentinel.alive())
            .map((sentinel) => this.askPrimary(sentinel.port)),
        );
        const port = reported[0];
        if (port === dead || reported.some((other) => other !== port)) return undefined;
        const info = infoFields(await redisCommand(port, this.access, ['INFO', 'replication']));
        return info.role === 'master' ? { port, promotedAt: Date.now() } : undefined;
      },
      { timeoutMs, intervalMs: 50, what: `a sentinel-promoted primary in place of ${dead}` },
    );
  }

  private async restartKilled(): Promise<void> {
    if (this.killedPort === undefined) throw new Error('no primary was killed through killPrimary');
    const node = this.processes.find((candidate) => candidate.port === this.killedPort)!;
    const primary = await this.primaryPortNow();
    await node.restart([`replicaof 127.0.0.1 ${primary}`]);
    await waitFor(
      async () => {
        const info = infoFields(await redisCommand(node.port, this.access, ['INFO', 'replication']));
        return (
          info.master_link_status === 'up' &&
          info.master_sync_in_progress === '0' &&
          (await sentinelsReady(this.sentinelPorts, this.sentinelAccess, this.name, 1))
        );
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `the node on ${node.port} to serve again as a replica` },
    );
    this.killedPort = undefined;
  }
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
