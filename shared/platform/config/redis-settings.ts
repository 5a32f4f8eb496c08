import { readFileSync } from 'node:fs';
import { bool, str } from 'envalid';
import { type ConfigProblem, readSettings, type SettingValues, setting } from './settings-table';
import { intInRange, redisUrl } from './validators';

/** One Redis endpoint: a sentinel or a cluster seed node. */
export interface RedisEndpoint {
  host: string;
  port: number;
}

/** Which kind of Redis deployment the connector talks to; exactly one variable selects it. */
export type RedisTopology =
  | { mode: 'single'; url: string }
  | { mode: 'sentinel'; sentinels: RedisEndpoint[]; name: string; sentinelPassword?: string }
  | { mode: 'cluster'; nodes: RedisEndpoint[] };

/** How to reach Redis: the topology plus the credentials and TLS settings every node shares. */
export interface RedisConnection {
  topology: RedisTopology;
  /** ACL user and password of the data nodes (a URL's own user and password win over these). */
  username?: string;
  password?: string;
  /** TLS to every node (`REDIS_TLS`; a URL asks for it with `rediss://`). */
  tls: boolean;
  /** PEM of the CAs to trust instead of the system's, read from `REDIS_TLS_CA_FILE` at start. */
  ca?: string;
}

type Problems = ConfigProblem[];

const MODE_VARIABLES = ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const;
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/;

/**
 * Parses a comma-separated list of `host:port` endpoints (an IPv6 host in brackets). Throws a message that
 * never repeats the input, since a list of hosts is not secret but a mistyped password pasted here would be.
 */
export function parseEndpoints(input: string): RedisEndpoint[] {
  const items = input
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  if (items.length === 0) throw new Error('must list at least one host:port');
  return items.map((item) => {
    const colon = item.lastIndexOf(':');
    const host = colon > 0 ? item.slice(0, colon) : '';
    const port = colon > 0 ? item.slice(colon + 1) : '';
    if (!HOST.test(host) || !/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65_535) {
      throw new Error('must be a comma-separated list of host:port (an IPv6 host in brackets)');
    }
    return { host: host.startsWith('[') ? host.slice(1, -1) : host, port: Number(port) };
  });
}

/**
 * The Redis variables and their rules (listed in docs/configuration.md). The mode and connection variables
 * make up {@link RedisSettings.connection}; the last three land in the configuration as they are.
 */
export const REDIS_SETTINGS = {
  url: setting('REDIS_URL', redisUrl({ default: undefined })),
  sentinels: setting('REDIS_SENTINELS', str({ default: undefined })),
  sentinelName: setting('REDIS_SENTINEL_NAME', str({ default: undefined })),
  sentinelPassword: setting('REDIS_SENTINEL_PASSWORD', str({ default: undefined })),
  clusterNodes: setting('REDIS_CLUSTER_NODES', str({ default: undefined })),
  username: setting('REDIS_USERNAME', str({ default: undefined })),
  password: setting('REDIS_PASSWORD', str({ default: undefined })),
  tls: setting('REDIS_TLS', bool({ default: false })),
  tlsCaFile: setting('REDIS_TLS_CA_FILE', str({ default: undefined })),
  /** Paid-job queues the jobs are spread over (`JOB_QUEUE_SHARDS`; each its own hash slot on a cluster). */
  jobQueueShards: setting('JOB_QUEUE_SHARDS', intInRange(1, 64)({ default: 1 })),
  /** Replicas that must confirm a new paid job (Redis `WAIT`) before it is acknowledged (`REDIS_MIN_REPLICAS`); 0 = none. */
  redisMinReplicas: setting('REDIS_MIN_REPLICAS', intInRange(0, 16)({ default: 0 })),
  /** How long that confirmation may take before the job is answered 503 (`REDIS_WAIT_MS`). */
  redisWaitMs: setting('REDIS_WAIT_MS', intInRange(10, 60_000)({ default: 500 })),
};

type RedisValues = SettingValues<typeof REDIS_SETTINGS>;

/** The Redis part of the configuration. */
export interface RedisSettings extends Pick<RedisValues, 'jobQueueShards' | 'redisMinReplicas' | 'redisWaitMs'> {
  /** Undefined: no Redis configured, the embedded in-memory backend. */
  readonly connection: RedisConnection | undefined;
}

/** Every Redis variable refused for its value is `is invalid`, with the accepted values of the one boolean. */
const redisReason = (name: string): string => `is invalid${name === 'REDIS_TLS' ? ' (true or false)' : ''}`;

/**
 * Reads the Redis variables (docs/redis.md, "The variables"), appending every problem by variable name to
 * `problems` so that the caller reports them all together. Only one of the three mode variables may be set.
 * The settings are meaningful only when no problem was added.
 */
export function loadRedisSettings(env: NodeJS.ProcessEnv, problems: Problems): RedisSettings {
  const { values, failed } = readSettings(env, REDIS_SETTINGS, problems, redisReason);
  const { jobQueueShards, redisMinReplicas, redisWaitMs } = values;
  const tuning = { jobQueueShards, redisMinReplicas, redisWaitMs };
  const chosen = MODE_VARIABLES.filter((name) => typeof env[name] === 'string' && env[name] !== '');
  if (chosen.length > 1) {
    problems.push({ name: chosen.join(', '), reason: 'are set together; set exactly one of them' });
    return { connection: undefined, ...tuning };
  }
  const common = {
    ...(values.username ? { username: values.username } : {}),
    ...(values.password ? { password: values.password } : {}),
    tls: values.tls ?? false,
    ...readCa(values.tlsCaFile, problems),
  };
  const topology = chosen[0] === undefined || failed(chosen[0]) ? undefined : topologyOf(chosen[0], values, problems);
  if (topology?.mode === 'single') common.tls = new URL(topology.url).protocol === 'rediss:';
  if (common.ca && !common.tls && topology) {
    const how = topology.mode === 'single' ? 'a rediss:// REDIS_URL' : 'REDIS_TLS=true';
    problems.push({ name: 'REDIS_TLS_CA_FILE', reason: `is set but TLS is off (use ${how})` });
  }
  return { connection: topology ? { topology, ...common } : undefined, ...tuning };
}

/** The topology the one mode variable set selects; undefined (with its problems added) when it is unusable. */
function topologyOf(mode: (typeof MODE_VARIABLES)[number], values: RedisValues, problems: Problems): RedisTopology | undefined {
  if (mode === 'REDIS_URL') return { mode: 'single', url: values.url! };
  if (mode === 'REDIS_CLUSTER_NODES') {
    const nodes = endpoints(mode, values.clusterNodes!, problems);
    return nodes && { mode: 'cluster', nodes };
  }
  const sentinels = endpoints(mode, values.sentinels!, problems);
  if (!values.sentinelName) {
    problems.push({ name: 'REDIS_SENTINEL_NAME', reason: 'is required with REDIS_SENTINELS' });
    return undefined;
  }
  return (
    sentinels && {
      mode: 'sentinel',
      sentinels,
      name: values.sentinelName,
      ...(values.sentinelPassword ? { sentinelPassword: values.sentinelPassword } : {}),
    }
  );
}

function endpoints(name: string, input: string, problems: Problems): RedisEndpoint[] | undefined {
  try {
    return parseEndpoints(input);
  } catch (error) {
    problems.push({ name, reason: (error as Error).message });
    return undefined;
  }
}

/** The CA bundle, read once at start: a missing or unreadable file is a configuration error, not a TLS failure later. */
function readCa(file: string | undefined, problems: Problems): { ca?: string } {
  if (!file) return {};
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch {
    problems.push({ name: 'REDIS_TLS_CA_FILE', reason: 'is not a readable file' });
    return {};
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    problems.push({ name: 'REDIS_TLS_CA_FILE', reason: 'holds no PEM certificate' });
    return {};
  }
  return { ca: pem };
}

/** The connection settings of one plain node at `url`, as `REDIS_URL` alone gives them. */
export function singleNodeConnection(url: string): RedisConnection {
  return { topology: { mode: 'single', url }, tls: new URL(url).protocol === 'rediss:' };
}

/** The URL of a one-node connection; undefined for Sentinel and Cluster, which have no single URL. */
export function connectionUrl(connection: RedisConnection | undefined): string | undefined {
  return connection?.topology.mode === 'single' ? connection.topology.url : undefined;
}
