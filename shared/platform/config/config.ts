import { cleanEnv, str, type Spec } from 'envalid';
import { ConfigError } from '../errors/config-error';
import { loadOAuthSettings, OAUTH_VARIABLES, type OAuthSettings } from './oauth-config';
import { loadWebhookSettings, WEBHOOK_VARIABLES, type WebhookSettings } from './webhook-settings';
import { loadTracingSettings, TRACING_VARIABLES } from './tracing-settings';
import { listenHostAddress, resolveListenHost } from './listen-host';
import { loadRedisSettings, REDIS_VARIABLES, type RedisConnection } from './redis-settings';
import { httpsUrl, intInRange, originList, publicUrl, secretOfAtLeast } from './validators';

/** Which process is loading the configuration; they differ in defaults and in what they require. */
export type ProcessRole = 'api' | 'worker' | 'dev';

/** The validated configuration shared by the API and the worker. */
export interface Config {
  readonly connectorSecret: string;
  /** `CONNECTOR_SECRET_PREVIOUS`: during a rotation, what it signed is still accepted; nothing new is signed with it. */
  readonly connectorSecretPrevious: string | undefined;
  readonly publicUrl: string;
  readonly dashboardUrl: string;
  readonly linkSecret: string;
  /** `LINK_SECRET_PREVIOUS`: during a rotation, accepted on every link-secret operation beside `LINK_SECRET`. */
  readonly linkSecretPrevious: string | undefined;
  readonly port: number;
  readonly metricsPort: number;
  /** The address the API's and the metrics listeners bind (`HOST`, see {@link resolveListenHost}); undefined: every interface. */
  readonly host: string | undefined;
  /** How to reach Redis (one node, Sentinel or Cluster); undefined: the embedded in-memory backend. */
  readonly redis: RedisConnection | undefined;
  readonly redisKeyPrefix: string;
  /** Paid-job queues the jobs are spread over (`JOB_QUEUE_SHARDS`). */
  readonly jobQueueShards: number;
  /** Replicas that must confirm a new paid job before it is acknowledged (`REDIS_MIN_REPLICAS`); 0 = none. */
  readonly redisMinReplicas: number;
  /** How long that confirmation may take (`REDIS_WAIT_MS`). */
  readonly redisWaitMs: number;
  readonly logLevel: string;
  readonly tokenTtlSeconds: number;
  readonly idempotencyTtlSeconds: number;
  readonly workerConcurrency: number;
  readonly trustProxy: number;
  readonly placeholderJobMs: number;
  readonly shutdownGraceMs: number;
  readonly rateLimitPerMinute: number;
  /** Failed authentications (wrong link secret, forged token) allowed per client address per minute. */
  readonly authFailuresPerMinute: number;
  /** Credits a subject may be charged per UTC day; undefined means no cap. */
  readonly dailyCreditLimit: number | undefined;
  readonly jobAttempts: number;
  readonly jobBackoffMs: number;
  /** Redis mode: a command without a reply after this long fails (and the request answers 503). */
  readonly redisCommandTimeoutMs: number;
  /** Redis mode: how long a worker's lock on a running job lasts; a dead worker's job is retaken after it. */
  readonly jobLockMs: number;
  /** Redis mode: how often workers look for jobs whose lock has expired (stalled jobs). */
  readonly jobStalledIntervalMs: number;
  /** OAuth 2.1 authorization server settings (`CONSENT_URL`, `OAUTH_*`). */
  readonly oauth: OAuthSettings;
  /** Origins, besides PUBLIC_URL's, allowed in the Origin header of `/mcp` requests (DNS-rebinding protection). */
  readonly mcpAllowedOrigins: readonly string[];
  /** After SIGTERM, how long the API keeps serving (with `/readyz` at 503) before it stops accepting. */
  readonly shutdownDelayMs: number;
  /** HTTP limits of the API's listener (see `api/http/http-server.ts`). */
  readonly http: HttpLimits;
  /** Signed events to the operator (`WEBHOOK_*`); undefined when no receiver is configured. */
  readonly webhooks: WebhookSettings | undefined;
}

/** Limits of the API's HTTP listener. */
export interface HttpLimits {
  /** An idle keep-alive connection is closed after this long; above the ingress's own, so it closes first. */
  readonly keepAliveTimeoutMs: number;
  /** A request's headers must have arrived within this long. */
  readonly headersTimeoutMs: number;
  /** A whole request (headers and body) must have arrived within this long. */
  readonly requestTimeoutMs: number;
  /** The request line (URL included) plus headers may not exceed this many bytes (431 otherwise). */
  readonly maxHeaderBytes: number;
}

/**
 * Each rotation variable and the one it stands beside. A previous value equal to the current one would make
 * the overlap a no-op that the operator believes is protecting them, so it is refused.
 */
export const PREVIOUS_OF = [
  ['CONNECTOR_SECRET_PREVIOUS', 'CONNECTOR_SECRET'],
  ['LINK_SECRET_PREVIOUS', 'LINK_SECRET'],
  ['WEBHOOK_SECRET_PREVIOUS', 'WEBHOOK_SECRET'],
] as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DAY = 86_400;

/** The connector's own variables (the OAuth, Redis and webhook ones live beside their settings). */
function coreVariables(role: ProcessRole) {
  return {
    CONNECTOR_SECRET: secretOfAtLeast(32)({ desc: 'secret of the connector; signing keys are derived from it' }),
    PUBLIC_URL: publicUrl({ desc: 'the address the platform is told to call' }),
    DASHBOARD_URL: httpsUrl({ desc: 'where users revoke access' }),
    LINK_SECRET: secretOfAtLeast(1)({ desc: 'shared secret checked on /v1/link' }),
    CONNECTOR_SECRET_PREVIOUS: secretOfAtLeast(32)({ default: undefined }),
    LINK_SECRET_PREVIOUS: secretOfAtLeast(1)({ default: undefined }),
    PORT: intInRange(0, 65_535)({ default: 8787 }),
    HOST: listenHostAddress({ default: undefined }),
    METRICS_PORT: intInRange(0, 65_535)({ default: role === 'worker' ? 9465 : 9464 }),
    REDIS_KEY_PREFIX: str({ default: 'connector:' }),
    LOG_LEVEL: str({ choices: LOG_LEVELS, default: 'info' }),
    TOKEN_TTL_SECONDS: intInRange(60, 365 * DAY)({ default: 30 * DAY }),
    IDEMPOTENCY_TTL_SECONDS: intInRange(60, 30 * DAY)({ default: DAY }),
    WORKER_CONCURRENCY: intInRange(1, 256)({ default: 4 }),
    TRUST_PROXY: intInRange(0, 16)({ default: 0 }),
    PLACEHOLDER_JOB_MS: intInRange(0, 600_000)({ default: 2000 }),
    SHUTDOWN_GRACE_MS: intInRange(0, 600_000)({ default: 10_000 }),
    RATE_LIMIT_PER_MINUTE: intInRange(1, 1_000_000)({ default: 120 }),
    AUTH_FAILURES_PER_MINUTE: intInRange(1, 1_000_000)({ default: 20 }),
    DAILY_CREDIT_LIMIT: intInRange(0, 1_000_000_000)({ default: undefined }),
    JOB_ATTEMPTS: intInRange(1, 100)({ default: 3 }),
    JOB_BACKOFF_MS: intInRange(0, 600_000)({ default: 1000 }),
    REDIS_COMMAND_TIMEOUT_MS: intInRange(100, 60_000)({ default: 2000 }),
    JOB_LOCK_MS: intInRange(1000, 600_000)({ default: 30_000 }),
    JOB_STALLED_INTERVAL_MS: intInRange(500, 600_000)({ default: 30_000 }),
    MCP_ALLOWED_ORIGINS: originList({ default: [] }),
    SHUTDOWN_DELAY_MS: intInRange(0, 600_000)({ default: 0 }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: intInRange(1000, 3_600_000)({ default: 75_000 }),
    HTTP_HEADERS_TIMEOUT_MS: intInRange(1000, 600_000)({ default: 20_000 }),
    HTTP_REQUEST_TIMEOUT_MS: intInRange(1000, 600_000)({ default: 30_000 }),
    HTTP_MAX_HEADER_BYTES: intInRange(4096, 65_536)({ default: 16_384 }),
  };
}

/**
 * Every environment variable the configuration reads, with its envalid spec (`default`, `desc`, `choices`):
 * the source of truth `docs/configuration.md` is checked against (`test/docs/configuration-reference.test.ts`).
 * A variable without a `default` property is required.
 */
export function configVariables(role: ProcessRole = 'api'): Record<string, Spec<unknown>> {
  return { ...coreVariables(role), ...REDIS_VARIABLES, ...OAUTH_VARIABLES, ...WEBHOOK_VARIABLES, ...TRACING_VARIABLES };
}

/**
 * Validates the environment. Throws a {@link ConfigError} naming every offending variable (never a value),
 * so the caller can print it and exit before listening on any port.
 */
export function loadConfig(env: NodeJS.ProcessEnv, role: ProcessRole = 'api'): Config {
  const problems: Array<{ name: string; reason: string }> = [];
  const clean = cleanEnv(env, coreVariables(role), {
    // envalid's own messages can echo the value; report names with our own reasons only.
    reporter: ({ errors }) => {
      for (const [name, error] of Object.entries(errors)) {
        const missing = error?.constructor?.name === 'EnvMissingError';
        problems.push({ name, reason: missing ? 'is required' : sanitise(error) });
      }
    },
  });
  const redis = loadRedisSettings(env, problems);
  if (role === 'worker' && !redis.connection && !problems.some((p) => p.name.startsWith('REDIS_'))) {
    problems.push({ name: 'REDIS_URL', reason: 'is required by the worker (or REDIS_SENTINELS, or REDIS_CLUSTER_NODES)' });
  }
  // Braces in the prefix would become every key's hash tag and put all data in one cluster slot.
  if (/[{}]/.test(clean.REDIS_KEY_PREFIX)) problems.push({ name: 'REDIS_KEY_PREFIX', reason: 'must not contain { or }' });
  // envalid refuses to read a variable that failed validation, so the URL is only passed on when valid.
  const dashboardValid = !problems.some((p) => p.name === 'DASHBOARD_URL');
  const oauth = loadOAuthSettings(env, dashboardValid ? { dashboardUrl: clean.DASHBOARD_URL } : {}, problems);
  const webhooks = loadWebhookSettings(env, problems);
  for (const [previous, current] of PREVIOUS_OF) {
    if (env[previous] !== undefined && env[previous] === env[current])
      problems.push({ name: previous, reason: `must differ from ${current}` });
  }
  // Tracing is started from these before the configuration is loaded (shared/platform/tracing); checked here
  // too, so that a wrong value is refused with the rest instead of leaving tracing silently off.
  loadTracingSettings(env, problems);
  // Node refuses a request timeout shorter than the headers timeout.
  if (clean.HTTP_REQUEST_TIMEOUT_MS < clean.HTTP_HEADERS_TIMEOUT_MS && !problems.some((p) => p.name.startsWith('HTTP_'))) {
    problems.push({ name: 'HTTP_REQUEST_TIMEOUT_MS', reason: 'must be at least HTTP_HEADERS_TIMEOUT_MS' });
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    connectorSecret: clean.CONNECTOR_SECRET,
    connectorSecretPrevious: clean.CONNECTOR_SECRET_PREVIOUS,
    publicUrl: clean.PUBLIC_URL,
    dashboardUrl: clean.DASHBOARD_URL,
    linkSecret: clean.LINK_SECRET,
    linkSecretPrevious: clean.LINK_SECRET_PREVIOUS,
    port: clean.PORT,
    metricsPort: clean.METRICS_PORT,
    host: resolveListenHost(clean.HOST, clean.PUBLIC_URL),
    redis: redis.connection,
    redisKeyPrefix: clean.REDIS_KEY_PREFIX,
    jobQueueShards: redis.queueShards,
    redisMinReplicas: redis.minReplicas,
    redisWaitMs: redis.waitMs,
    logLevel: clean.LOG_LEVEL,
    tokenTtlSeconds: clean.TOKEN_TTL_SECONDS,
    idempotencyTtlSeconds: clean.IDEMPOTENCY_TTL_SECONDS,
    workerConcurrency: clean.WORKER_CONCURRENCY,
    trustProxy: clean.TRUST_PROXY,
    placeholderJobMs: clean.PLACEHOLDER_JOB_MS,
    shutdownGraceMs: clean.SHUTDOWN_GRACE_MS,
    rateLimitPerMinute: clean.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: clean.AUTH_FAILURES_PER_MINUTE,
    dailyCreditLimit: clean.DAILY_CREDIT_LIMIT,
    jobAttempts: clean.JOB_ATTEMPTS,
    jobBackoffMs: clean.JOB_BACKOFF_MS,
    redisCommandTimeoutMs: clean.REDIS_COMMAND_TIMEOUT_MS,
    jobLockMs: clean.JOB_LOCK_MS,
    jobStalledIntervalMs: clean.JOB_STALLED_INTERVAL_MS,
    oauth,
    mcpAllowedOrigins: clean.MCP_ALLOWED_ORIGINS,
    shutdownDelayMs: clean.SHUTDOWN_DELAY_MS,
    http: {
      keepAliveTimeoutMs: clean.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: clean.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: clean.HTTP_REQUEST_TIMEOUT_MS,
      maxHeaderBytes: clean.HTTP_MAX_HEADER_BYTES,
    },
    webhooks,
  };
}

/** Our validators' messages never contain the input; envalid's built-in ones might, so they are replaced. */
function sanitise(error: Error | undefined): string {
  const message = error?.message ?? '';
  return /^(must|is) /.test(message) ? message : 'is invalid';
}
