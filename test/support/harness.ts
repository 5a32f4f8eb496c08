import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { type InProcessJobConsumer, type StartApiOptions, startApi } from '../../api/start-api';
import { bundleCardPage } from '../../scripts/bundle-card';
import { loadCardPagesWith } from '../../shared/contract/cards/page-card';
import { type Config, loadConfig } from '../../shared/platform/config/config';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { createLogger } from '../../shared/platform/logging/logger';
import { inProcessWorkers } from '../../worker/in-process-workers';
import { startRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';
import type { BackendKind } from './backends';
import { type CallOptions, type CallResult, checkedClient } from './checked-client';
import { dropIdleConnections } from './idle-connections';
import { linkedToken } from './link-requests';
import { LogCapture } from './log-capture';
import type { OpenApiResponseChecker } from './openapi-check';

/** The environment every test connector starts from; tests override single variables. */
export const BASE_ENV = {
  CONNECTOR_SECRET: 'test-connector-secret-0123456789-abcdefghijklmnop',
  PUBLIC_URL: 'http://localhost:8787',
  DASHBOARD_URL: 'https://dashboard.example.com/connections',
  LINK_SECRET: 'test-link-secret-value-0123456789abcdef',
  PORT: '0',
  METRICS_PORT: '0',
  PLACEHOLDER_JOB_MS: '50',
  JOB_BACKOFF_MS: '10',
  RATE_LIMIT_PER_MINUTE: '100000',
  AUTH_FAILURES_PER_MINUTE: '100000',
  LOG_LEVEL: 'info',
} as const;

export type { CallOptions, CallResult } from './checked-client';

/** A real connector listening on a free port, with its captured log. */
export interface ConnectorUnderTest {
  readonly baseUrl: string;
  readonly metricsUrl: string;
  readonly config: Config;
  readonly logs: LogCapture;
  readonly checker: OpenApiResponseChecker;
  /** One HTTP request; the response is validated against the published document before it is returned. */
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Links a subject through the dashboard's endpoint and returns its token. */
  link(subject: string): Promise<string>;
  close(): Promise<void>;
}

/** Extra setup a backend needs (the Redis one starts a private server); filled in per backend. */
type BackendEnv = (env: Record<string, string>) => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>;

const BACKEND_ENV: Record<BackendKind, BackendEnv> = {
  memory: async (env) => ({ env, cleanup: async () => {} }),
  // A private redis-server per connector (never the system one), and a distinct key prefix so that keys
  // could not collide even if a server were shared. A connector given REDIS_URL shares the private server of
  // another connector under test, which owns it (and stops it); one given REDIS_CLUSTER_NODES or
  // REDIS_SENTINELS uses that topology, which its test file started and stops.
  redis: async (env) => {
    if (env.REDIS_URL || env.REDIS_CLUSTER_NODES || env.REDIS_SENTINELS) return { env, cleanup: async () => {} };
    const redis = await startRedis();
    const prefix = `test-${randomBytes(4).toString('hex')}:`;
    return { env: { ...env, REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix }, cleanup: () => redis.stop() };
  },
};

/** The worker's BullMQ consumer run inside an API process, composed here as `npm run dev` composes it. */
export function inProcessWorker(config: Config, logger: Logger): InProcessJobConsumer {
  return inProcessWorkers(config, logger);
}

/** How a test connector is started: the API's options, and whether it also consumes the queue (default yes). */
export type ConnectorOptions = Omit<StartApiOptions, 'jobConsumer'> & { runWorker?: boolean };

/** Starts a connector on the given backend with `BASE_ENV` plus `overrides`, and waits until it is ready. */
export async function startConnector(
  kind: BackendKind,
  overrides: Record<string, string> = {},
  { runWorker = true, ...options }: ConnectorOptions = {},
): Promise<ConnectorUnderTest> {
  const prepared = await BACKEND_ENV[kind]({ ...BASE_ENV, ...overrides });
  const config = loadConfig(prepared.env, 'dev');
  const logs = new LogCapture();
  const logger = createLogger(config.logLevel, 'connector-test', logs);
  // From the sources, as `npm run dev` does: the MCP Apps cards are bundled from their pages, never read from dist/.
  loadCardPagesWith(bundleCardPage);
  // On Redis the API only enqueues; the same process also consumes the queue, as `npm run dev` does.
  const jobConsumer = runWorker ? inProcessWorker(config, logger) : undefined;
  const api = await startApi(config, logger, { ...options, env: prepared.env, jobConsumer });
  const baseUrl = `http://127.0.0.1:${api.port}`;
  // On Redis the API listens before its client has connected, and until then requests that need Redis
  // answer 503 by design; a connector under test is handed out ready.
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, { what: `the ${kind} connector to be ready` });
  } catch (error) {
    await api.close();
    await prepared.cleanup();
    throw error;
  }
  const { call, checker } = await checkedClient(baseUrl);

  return {
    baseUrl,
    metricsUrl: `http://127.0.0.1:${api.metricsPort}/metrics`,
    config,
    logs,
    checker,
    call,
    link: (subject) => linkedToken(call, { subject, secret: config.linkSecret }),
    close: async () => {
      dropIdleConnections();
      await api.close();
      await prepared.cleanup();
    },
  };
}

/**
 * Starts two connectors (each an API with its worker) sharing the first one's Redis node and key prefix: two
 * replicas of one deployment. The second one's failure closes the first.
 */
export async function startRedisPair(
  overrides: Record<string, string> = {},
  options: ConnectorOptions = {},
): Promise<[ConnectorUnderTest, ConnectorUnderTest]> {
  const first = await startConnector('redis', overrides, options);
  const shared = { REDIS_URL: connectionUrl(first.config.redis)!, REDIS_KEY_PREFIX: first.config.redisKeyPrefix };
  try {
    return [first, await startConnector('redis', { ...overrides, ...shared }, options)];
  } catch (error) {
    await first.close();
    throw error;
  }
}

/** A fresh idempotency key. */
export function newKey(): string {
  return `key-${randomBytes(8).toString('hex')}`;
}

/** A fresh subject, so tests sharing one connector never see each other's data. */
export function newSubject(): string {
  return `user-${randomBytes(6).toString('hex')}@example.com`;
}
