import { readFileSync } from 'node:fs';
import { bool, cleanEnv, str } from 'envalid';
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

/** The Redis part of the configuration. */
export interface RedisSettings {
  /** Undefined: no Redis configured, the embedded in-memory backend. */
  connection: RedisConnection | undefined;
  /** Paid-job queues the jobs are spread over (each its own hash slot on a cluster). */
  queueShards: number;
  /** Replicas that must confirm a new paid job (Redis `WAIT`) before it is acknowledged; 0 = no wait. */
  minReplicas: number;
  /** How long `WAIT` may take before the job is answered 503. */
  waitMs: number;
}

type Problems = Array<{ name: string; reason: string }>;

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

/** The Redis variables and their rules (listed in docs/configuration.md). */
export const REDIS_VARIABLES = {
  REDIS_URL: redisUrl({ default: undefined }),
  REDIS_SENTINELS: str({ default: undefined }),
  REDIS_SENTINEL_NAME: str({ default: undefined }),
  REDIS_SENTINEL_PASSWORD: str({ default: undefined }),
  REDIS_CLUSTER_NODES: str({ default: undefined }),
  REDIS_USERNAME: str({ default: undefined }),
  REDIS_PASSWORD: str({ default: undefined }),
  REDIS_TLS: bool({ default: false }),
  REDIS_TLS_CA_FILE: str({ default: undefined }),
  JOB_QUEUE_SHARDS: intInRange(1, 64)({ default: 1 }),
  REDIS_MIN_REPLICAS: intInRange(0, 16)({ default: 0 }),
  REDIS_WAIT_MS: intInRange(10, 60_000)({ default: 500 }),
};

/**
 * Reads the Redis variables (CONTRACT.md, "Redis topologies"), appending every problem by variable name to
 * `problems` so that the caller reports them all together. Only one of the three mode variables may be set.
 */
export function loadRedisSettings(env: NodeJS.ProcessEnv, problems: Problems): RedisSettings {
  const clean = cleanEnv(env, REDIS_VARIABLES, {
    reporter: ({ errors }) => {
      for (const name of Object.keys(errors))
        problems.push({ name, reason: `is invalid${name === 'REDIS_TLS' ? ' (true or false)' : ''}` });
    },
  });
  const failed = (name: string) => problems.some((p) => p.name === name);
  // envalid refuses to read a variable that failed validation; its problem is reported already.
  const read = <T>(name: keyof typeof clean, fallback: T): T => (failed(name) ? fallback : (clean[name] as T));
  const settings = {
    queueShards: read('JOB_QUEUE_SHARDS', 1),
    minReplicas: read('REDIS_MIN_REPLICAS', 0),
    waitMs: read('REDIS_WAIT_MS', 500),
  };

  const chosen = MODE_VARIABLES.filter((name) => typeof env[name] === 'string' && env[name] !== '');
  if (chosen.length > 1) {
    problems.push({ name: chosen.join(', '), reason: 'are set together; set exactly one of them' });
    return { connection: undefined, ...settings };
  }
  const common = {
    ...(clean.REDIS_USERNAME ? { username: clean.REDIS_USERNAME } : {}),
    ...(clean.REDIS_PASSWORD ? { password: clean.REDIS_PASSWORD } : {}),
    tls: read('REDIS_TLS', false),
    ...readCa(clean.REDIS_TLS_CA_FILE, problems),
  };
  let topology: RedisTopology | undefined;
  if (chosen[0] === 'REDIS_URL' && !failed('REDIS_URL')) {
    topology = { mode: 'single', url: clean.REDIS_URL! };
    common.tls = new URL(clean.REDIS_URL!).protocol === 'rediss:';
  } else if (chosen[0] === 'REDIS_SENTINELS') {
    const sentinels = endpoints('REDIS_SENTINELS', clean.REDIS_SENTINELS!, problems);
    if (!clean.REDIS_SENTINEL_NAME) problems.push({ name: 'REDIS_SENTINEL_NAME', reason: 'is required with REDIS_SENTINELS' });
    else if (sentinels) {
      topology = {
        mode: 'sentinel',
        sentinels,
        name: clean.REDIS_SENTINEL_NAME,
        ...(clean.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: clean.REDIS_SENTINEL_PASSWORD } : {}),
      };
    }
  } else if (chosen[0] === 'REDIS_CLUSTER_NODES') {
    const nodes = endpoints('REDIS_CLUSTER_NODES', clean.REDIS_CLUSTER_NODES!, problems);
    if (nodes) topology = { mode: 'cluster', nodes };
  }
  if (common.ca && !common.tls && topology) {
    const how = topology.mode === 'single' ? 'a rediss:// REDIS_URL' : 'REDIS_TLS=true';
    problems.push({ name: 'REDIS_TLS_CA_FILE', reason: `is set but TLS is off (use ${how})` });
  }
  return { connection: topology ? { topology, ...common } : undefined, ...settings };
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
