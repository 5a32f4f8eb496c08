import { str, type ValidatorSpec } from 'envalid';
import { BILLING_SETTINGS, type BillingSettings, loadBillingSettings } from './billing-settings';
import { ConfigError } from './config-error';
import { listenHostAddress, resolveListenHost } from './listen-host';
import { loadOAuthSettings, OAUTH_SETTINGS, type OAuthSettings } from './oauth-config';
import { loadRedisSettings, REDIS_SETTINGS, type RedisSettings } from './redis-settings';
import { type ConfigProblem, readSettings, type SettingValues, setting, variablesOf } from './settings-table';
import { loadTracingSettings, TRACING_SETTINGS } from './tracing-settings';
import { httpsUrl, intInRange, originList, publicUrl, secretOfAtLeast, sharedSecretOfAtLeast } from './validators';
import { loadWebhookSettings, WEBHOOK_SETTINGS, type WebhookSettings } from './webhook-settings';
import { loadX402Settings, X402_SETTINGS, type X402Settings } from './x402-settings';

/** Which process is loading the configuration; they differ in defaults and in what they require. */
export type ProcessRole = 'api' | 'worker' | 'dev';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DAY = 86_400;

/**
 * The connector's own settings, each declared once: where it lands in {@link Config}, the variable it is read
 * from and its envalid spec (default, rule). The OAuth, Redis, webhook, billing and tracing groups live beside
 * their settings, declared the same way.
 */
function coreSettings(role: ProcessRole) {
  return {
    /** `CONNECTOR_SECRET`: signing keys (tokens, job ids) are derived from it. */
    connectorSecret: setting(
      'CONNECTOR_SECRET',
      secretOfAtLeast(32)({ desc: 'secret of the connector; signing keys are derived from it' }),
    ),
    /** `CONNECTOR_SECRET_PREVIOUS`: during a rotation, what it signed is still accepted; nothing new is signed with it. */
    connectorSecretPrevious: setting('CONNECTOR_SECRET_PREVIOUS', secretOfAtLeast(32)({ default: undefined })),
    /** `PUBLIC_URL`, without a trailing slash: the address the platform is told to call. */
    publicUrl: setting('PUBLIC_URL', publicUrl({ desc: 'the address the platform is told to call' })),
    /** `DASHBOARD_URL`: where people get and revoke access. */
    dashboardUrl: setting('DASHBOARD_URL', httpsUrl({ desc: 'where users revoke access' })),
    /**
     * `LINK_SECRET`: the dashboard's shared secret for `/v1/link` and its other operations. At least 32
     * characters, like `CONNECTOR_SECRET`: whoever holds it mints a token for any subject, and the failure
     * budget only slows guessing (a right guess is admitted whatever the budget says).
     */
    linkSecret: setting('LINK_SECRET', sharedSecretOfAtLeast(32)({ desc: 'shared secret checked on /v1/link' })),
    /** `LINK_SECRET_PREVIOUS`: during a rotation, accepted on every link-secret operation beside `LINK_SECRET`. */
    linkSecretPrevious: setting('LINK_SECRET_PREVIOUS', sharedSecretOfAtLeast(32)({ default: undefined })),
    /** `PORT`: the API's port (0: any free port). */
    port: setting('PORT', intInRange(0, 65_535)({ default: 8787 })),
    /** The address the API's and the metrics listeners bind (`HOST`, see {@link resolveListenHost}); undefined: every interface. */
    host: setting('HOST', listenHostAddress({ default: undefined })),
    /** `METRICS_PORT`: the Prometheus listener (the worker's probes too). */
    metricsPort: setting('METRICS_PORT', intInRange(0, 65_535)({ default: role === 'worker' ? 9465 : 9464 })),
    /** `REDIS_KEY_PREFIX`: the prefix of every Redis key and BullMQ queue. */
    redisKeyPrefix: setting('REDIS_KEY_PREFIX', str({ default: 'connector:' })),
    /** `LOG_LEVEL`: the lowest level written. */
    logLevel: setting('LOG_LEVEL', str({ choices: LOG_LEVELS, default: 'info' })),
    /** `TOKEN_TTL_SECONDS`: lifetime of minted tokens and of OAuth grants. */
    tokenTtlSeconds: setting('TOKEN_TTL_SECONDS', intInRange(60, 365 * DAY)({ default: 30 * DAY })),
    /** `IDEMPOTENCY_TTL_SECONDS`: how long a key returns the same job. */
    idempotencyTtlSeconds: setting('IDEMPOTENCY_TTL_SECONDS', intInRange(60, 30 * DAY)({ default: DAY })),
    /** `WORKER_CONCURRENCY`: jobs run at once per process (on Redis, per queue shard). */
    workerConcurrency: setting('WORKER_CONCURRENCY', intInRange(1, 256)({ default: 4 })),
    /** `TRUST_PROXY`: proxy hops in front of the API, for the client address of the per-address limits. */
    trustProxy: setting('TRUST_PROXY', intInRange(0, 16)({ default: 0 })),
    /**
     * `CLIENT_IPV6_PREFIX`: the per-address limits count an IPv6 client by its network of this many bits (one
     * host is given a /64 and may change address inside it at will); an IPv4 client by its address.
     */
    clientIpv6Prefix: setting('CLIENT_IPV6_PREFIX', intInRange(32, 128)({ default: 64 })),
    /** `SHUTDOWN_GRACE_MS`: how long SIGTERM waits for in-flight requests and jobs. */
    shutdownGraceMs: setting('SHUTDOWN_GRACE_MS', intInRange(0, 600_000)({ default: 10_000 })),
    /** `RATE_LIMIT_PER_MINUTE`: requests per subject per minute. */
    rateLimitPerMinute: setting('RATE_LIMIT_PER_MINUTE', intInRange(1, 1_000_000)({ default: 120 })),
    /** Failed authentications (wrong link secret, forged token) allowed per client address per minute. */
    authFailuresPerMinute: setting('AUTH_FAILURES_PER_MINUTE', intInRange(1, 1_000_000)({ default: 20 })),
    /** Credits a subject may be charged per UTC day; undefined means no cap. */
    dailyCreditLimit: setting('DAILY_CREDIT_LIMIT', intInRange(0, 1_000_000_000)({ default: undefined })),
    /** `JOB_ATTEMPTS`: attempts per job, for an operation that sets none of its own. */
    jobAttempts: setting('JOB_ATTEMPTS', intInRange(1, 100)({ default: 3 })),
    /** `JOB_BACKOFF_MS`: the first retry's delay, for an operation that sets none of its own. */
    jobBackoffMs: setting('JOB_BACKOFF_MS', intInRange(0, 600_000)({ default: 1000 })),
    /** Redis mode: a command without a reply after this long fails (and the request answers 503). */
    redisCommandTimeoutMs: setting('REDIS_COMMAND_TIMEOUT_MS', intInRange(100, 60_000)({ default: 2000 })),
    /** Redis mode: how long a worker's lock on a running job lasts; a dead worker's job is retaken after it. */
    jobLockMs: setting('JOB_LOCK_MS', intInRange(1000, 600_000)({ default: 30_000 })),
    /** Redis mode: how often workers look for jobs whose lock has expired (stalled jobs). */
    jobStalledIntervalMs: setting('JOB_STALLED_INTERVAL_MS', intInRange(500, 600_000)({ default: 30_000 })),
    /** Origins, besides PUBLIC_URL's, allowed in the Origin header of `/mcp` requests (DNS-rebinding protection). */
    mcpAllowedOrigins: setting('MCP_ALLOWED_ORIGINS', originList({ default: [] })),
    /** After SIGTERM, how long the API keeps serving (with `/readyz` at 503) before it stops accepting. */
    shutdownDelayMs: setting('SHUTDOWN_DELAY_MS', intInRange(0, 600_000)({ default: 0 })),
    /** HTTP limits of the API's listener (see `api/http/http-server.ts`). */
    http: {
      /** An idle keep-alive connection is closed after this long; above the ingress's own, so it closes first. */
      keepAliveTimeoutMs: setting('HTTP_KEEP_ALIVE_TIMEOUT_MS', intInRange(1000, 3_600_000)({ default: 75_000 })),
      /** A request's headers must have arrived within this long. */
      headersTimeoutMs: setting('HTTP_HEADERS_TIMEOUT_MS', intInRange(1000, 600_000)({ default: 20_000 })),
      /** A whole request (headers and body) must have arrived within this long. */
      requestTimeoutMs: setting('HTTP_REQUEST_TIMEOUT_MS', intInRange(1000, 600_000)({ default: 30_000 })),
      /** The request line (URL included) plus headers may not exceed this many bytes (431 otherwise). */
      maxHeaderBytes: setting('HTTP_MAX_HEADER_BYTES', intInRange(4096, 65_536)({ default: 16_384 })),
    },
  };
}

/** The connector's own settings, as read ({@link coreSettings}). */
type CoreSettings = SettingValues<ReturnType<typeof coreSettings>>;

/** The validated configuration shared by the API and the worker. */
export interface Config extends CoreSettings, Omit<RedisSettings, 'connection'> {
  /** How to reach Redis (one node, Sentinel or Cluster); undefined: the embedded in-memory backend. */
  readonly redis: RedisSettings['connection'];
  /** OAuth 2.1 authorization server settings (`CONSENT_URL`, `OAUTH_*`). */
  readonly oauth: OAuthSettings;
  /** Signed events to the operator (`WEBHOOK_*`); undefined when no receiver is configured. */
  readonly webhooks: WebhookSettings | undefined;
  /** How credits are billed (`BILLING_MODE`, `TOP_UP_URL`, `CREDITS_LOW_THRESHOLD`, `SPEND_CONFIRMATION*`). */
  readonly billing: BillingSettings;
  /** Payments by agents (`X402=on` and `X402_*`); undefined when off. */
  readonly x402?: X402Settings | undefined;
}

/** Limits of the API's HTTP listener. */
export type HttpLimits = Config['http'];

/**
 * Each rotation variable and the one it stands beside. A previous value equal to the current one would make
 * the overlap a no-op that the operator believes is protecting them, so it is refused.
 */
export const PREVIOUS_OF = [
  ['CONNECTOR_SECRET_PREVIOUS', 'CONNECTOR_SECRET'],
  ['LINK_SECRET_PREVIOUS', 'LINK_SECRET'],
  ['WEBHOOK_SECRET_PREVIOUS', 'WEBHOOK_SECRET'],
] as const;

/**
 * Every environment variable the configuration reads, with its envalid spec (`default`, `desc`, `choices`):
 * the source of truth `docs/configuration.md` is checked against (`test/docs/configuration-reference.test.ts`).
 * A variable without a `default` property is required.
 */
export function configVariables(role: ProcessRole = 'api'): Record<string, ValidatorSpec<unknown>> {
  return [coreSettings(role), REDIS_SETTINGS, OAUTH_SETTINGS, WEBHOOK_SETTINGS, BILLING_SETTINGS, X402_SETTINGS, TRACING_SETTINGS].reduce(
    (all, table) => Object.assign(all, variablesOf(table)),
    {},
  );
}

/**
 * Validates the environment. Throws a {@link ConfigError} naming every offending variable (never a value),
 * so the caller can print it and exit before listening on any port.
 */
export function loadConfig(env: NodeJS.ProcessEnv, role: ProcessRole = 'api'): Config {
  const problems: ConfigProblem[] = [];
  const core = readSettings(env, coreSettings(role), problems);
  const { connection, ...redisTuning } = loadRedisSettings(env, problems);
  if (role === 'worker' && !connection && !problems.some((p) => p.name.startsWith('REDIS_'))) {
    problems.push({ name: 'REDIS_URL', reason: 'is required by the worker (or REDIS_SENTINELS, or REDIS_CLUSTER_NODES)' });
  }
  const { dashboardUrl } = core.values;
  const oauth = loadOAuthSettings(env, dashboardUrl === undefined ? {} : { dashboardUrl }, problems);
  const webhooks = loadWebhookSettings(env, problems);
  const billing = loadBillingSettings(env, dashboardUrl === undefined ? {} : { dashboardUrl }, problems);
  const x402 = loadX402Settings(env, problems);
  // Tracing is started from these before the configuration is loaded (shared/platform/tracing); checked here
  // too, so that a wrong value is refused with the rest instead of leaving tracing silently off.
  loadTracingSettings(env, problems);
  problems.push(...crossChecks(env, core.values, problems));
  if (problems.length > 0) throw new ConfigError(problems);
  const { values } = core;
  return {
    ...values,
    host: resolveListenHost(values.host, values.publicUrl),
    redis: connection,
    ...redisTuning,
    oauth,
    webhooks,
    billing,
    x402,
  };
}

/** The rules between variables, each checked only when the variables it compares were valid themselves. */
function crossChecks(env: NodeJS.ProcessEnv, core: Partial<CoreSettings>, known: readonly ConfigProblem[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // Braces in the prefix would become every key's hash tag and put all data in one cluster slot.
  if (/[{}]/.test(core.redisKeyPrefix ?? '')) problems.push({ name: 'REDIS_KEY_PREFIX', reason: 'must not contain { or }' });
  for (const [previous, current] of PREVIOUS_OF) {
    if (env[previous] !== undefined && env[previous] === env[current])
      problems.push({ name: previous, reason: `must differ from ${current}` });
  }
  // Node refuses a request timeout shorter than the headers timeout.
  const http = core.http;
  if (http?.requestTimeoutMs !== undefined && http.headersTimeoutMs !== undefined && !known.some((p) => p.name.startsWith('HTTP_'))) {
    if (http.requestTimeoutMs < http.headersTimeoutMs)
      problems.push({ name: 'HTTP_REQUEST_TIMEOUT_MS', reason: 'must be at least HTTP_HEADERS_TIMEOUT_MS' });
  }
  return problems;
}
