import type { ConnectionOptions } from 'node:tls';
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisConnection, RedisTopology } from '../../platform/config/redis-settings';
import { withinGrace } from '../../platform/lifecycle/within-grace';
import type { Metrics } from '../../platform/metrics/metrics';
import { coalesceWrites } from './coalesced-writes';
import { boundCommands } from './command-deadlines';
import { checkEvictionPolicy } from './eviction-policy';
import { RedisGuard } from './redis-guard';

/**
 * What a client is for. `commands` serves requests and must fail fast while Redis is away so that a
 * request answers 503 instead of hanging; `worker` is handed to BullMQ's Worker, which needs commands to
 * wait for the connection (BullMQ requires `maxRetriesPerRequest: null` for its blocking connection).
 */
export type RedisClientRole = 'commands' | 'worker';

/** A client of any topology: one node or Sentinel (`Redis`), or a cluster (`Cluster`); both speak every command we send. */
export type RedisClient = Redis | Cluster;

/** How a client is created. */
export interface RedisClientOptions {
  connection: RedisConnection;
  role: RedisClientRole;
  /** Shown in `CLIENT LIST`, which helps when several processes share a server. */
  connectionName: string;
  /** A command without a reply after this long is rejected (commands role only). */
  commandTimeoutMs: number;
  logger: Logger;
  metrics?: Metrics;
}

/** Reconnect delays grow 100 ms, 200 ms, 400 ms, … up to this cap, forever: Redis coming back is always picked up. */
export const MAX_RECONNECT_DELAY_MS = 2000;

/** Reconnects forever with capped exponential backoff (ioredis stops reconnecting if this returns nothing). */
export function reconnectDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(attempt - 1, 10), MAX_RECONNECT_DELAY_MS);
}

/**
 * Creates an ioredis client and wires its connection events to the `connector_redis_up` gauge, the
 * `connector_redis_errors_total` counter and the log. Connection errors are logged once per outage, not once
 * per reconnect attempt, so a long outage does not flood the log.
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  const failFast = options.role === 'commands';
  const settings: RedisOptions = {
    connectionName: options.connectionName,
    retryStrategy: reconnectDelay,
    connectTimeout: 5000,
    // Commands role: refuse at once while disconnected and give a reply-less command a deadline, so every
    // request gets an answer in bounded time. Worker role: BullMQ manages its own waiting and retries.
    enableOfflineQueue: !failFast,
    maxRetriesPerRequest: failFast ? 1 : null,
    // A missing ready check would let commands through while Redis is still loading its dataset.
    enableReadyCheck: true,
    // A primary demoted by a failover answers writes with READONLY: reconnecting finds the new primary
    // (through the sentinels, or the cluster's slot map) instead of failing every write until restart.
    reconnectOnError: (error) => (/^READONLY/.test(error.message) ? 2 : false),
  };
  const client = connect(options.connection, settings);
  // The commands role's deadline: one timer per client, not ioredis's `commandTimeout` (one per command).
  if (failFast) boundCommands(client, options.commandTimeoutMs);
  const log = options.logger.child({ redis_client: options.connectionName });
  let up = false;
  let policyChecked = false;
  options.metrics?.redisUp.set(0);

  // Every connection (a reconnect brings a new socket) sends the commands of one event-loop turn together.
  // Only for requests' commands: BullMQ's worker connections keep their own timing.
  if (failFast && client instanceof Redis) client.on('connect', () => coalesceWrites(client.stream));
  // On a cluster, each node's connection likewise (8.1 → 2.7 socket writes per fresh job, and about a third
  // less primary CPU per job in the bench's cluster runs; bench/README.md).
  if (failFast && client instanceof Cluster) client.on('+node', (node: Redis) => node.on('connect', () => coalesceWrites(node.stream)));
  client.on('ready', () => {
    if (!up) log.info('redis connected');
    up = true;
    options.metrics?.redisUp.set(1);
    if (!policyChecked) {
      policyChecked = true;
      void checkEvictionPolicy(client, log);
    }
  });
  client.on('error', (error: Error) => {
    options.metrics?.redisErrors.inc();
    if (up) log.warn({ err: { message: error.message, code: (error as NodeJS.ErrnoException).code } }, 'redis connection error');
    up = false;
    options.metrics?.redisUp.set(0);
  });
  client.on('close', () => {
    if (up) log.warn('redis connection lost; reconnecting');
    up = false;
    options.metrics?.redisUp.set(0);
  });
  return client;
}

/** The ioredis client for the configured topology, with TLS and credentials applied to every node. */
function connect(connection: RedisConnection, settings: RedisOptions): RedisClient {
  const access = accessOf(connection);
  const { topology } = connection;
  if (topology.mode === 'single') return connectOne(topology, settings, access);
  if (topology.mode === 'sentinel') return connectSentinel(topology, settings, access);
  return connectCluster(topology, settings, access);
}

type Topology<Mode extends RedisTopology['mode']> = Extract<RedisTopology, { mode: Mode }>;

/** What every node of a topology is reached with: TLS (when on, with its CA) and the data nodes' credentials. */
interface NodeAccess {
  tls?: ConnectionOptions;
  auth: Pick<RedisOptions, 'username' | 'password'>;
}

function accessOf(connection: RedisConnection): NodeAccess {
  return {
    ...(connection.tls ? { tls: connection.ca ? { ca: connection.ca } : {} } : {}),
    auth: {
      ...(connection.username ? { username: connection.username } : {}),
      ...(connection.password ? { password: connection.password } : {}),
    },
  };
}

function connectOne(topology: Topology<'single'>, settings: RedisOptions, { tls, auth }: NodeAccess): Redis {
  // A user or password in the URL wins over REDIS_USERNAME / REDIS_PASSWORD (ioredis reads the URL first).
  return new Redis(topology.url, { ...settings, ...auth, ...(tls ? { tls } : {}) });
}

function connectSentinel(topology: Topology<'sentinel'>, settings: RedisOptions, { tls, auth }: NodeAccess): Redis {
  return new Redis({
    ...settings,
    ...auth,
    ...(tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
    sentinels: topology.sentinels,
    name: topology.name,
    ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
    sentinelRetryStrategy: reconnectDelay,
  });
}

function connectCluster(topology: Topology<'cluster'>, settings: RedisOptions, { tls, auth }: NodeAccess): Cluster {
  const { retryStrategy, enableOfflineQueue, ...nodeSettings } = settings;
  const cluster: ClusterOptions = {
    clusterRetryStrategy: retryStrategy,
    enableOfflineQueue,
    enableReadyCheck: true,
    // Reads go to primaries: a replica may lag, and a job read right after its submission must find it.
    scaleReads: 'master',
    slotsRefreshTimeout: 2000,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 100,
    // A worker's writes (a job's completion above all) must outlast a failover, which takes the cluster's node
    // timeout plus an election: giving up after ioredis's default 16 redirections (about 3 s here) left the
    // job active until its lock expired, and then it ran again. Requests keep the default and answer 503.
    maxRedirections: enableOfflineQueue ? 200 : 16,
    // Managed clusters announce nodes by IP, which a TLS certificate names by host: keep the name given.
    ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    redisOptions: { ...nodeSettings, ...auth, ...(tls ? { tls } : {}) },
  };
  return new Cluster(topology.nodes, cluster);
}

/**
 * Closes a client politely (QUIT lets in-flight replies arrive) but never waits more than `timeoutMs`:
 * when Redis is down QUIT cannot be answered, and shutdown must still finish within the grace period.
 */
export async function closeRedisClient(client: RedisClient, timeoutMs = 1000): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') {
    await withinGrace(
      client.quit().catch(() => undefined),
      timeoutMs,
    );
  }
  client.disconnect();
}

/** `/readyz` waits at most this long for Redis to answer PING. */
export const READY_PING_TIMEOUT_MS = 1000;
const readyGuard = new RedisGuard(READY_PING_TIMEOUT_MS);

/**
 * True when the client is connected and Redis answers PING within {@link READY_PING_TIMEOUT_MS}: on a cluster,
 * every primary the client knows of, since each holds some subjects' data and some job shards.
 */
export async function redisAnswers(client: RedisClient): Promise<boolean> {
  if (client.status !== 'ready') return false;
  const nodes = client instanceof Cluster ? client.nodes('master') : [client];
  if (nodes.length === 0) return false;
  const replies = await Promise.all(nodes.map((node) => readyGuard.run(() => node.ping()).catch(() => undefined)));
  return replies.every((reply) => reply === 'PONG');
}
