import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';
import type { BackendKind } from './backends';
import type { CallOptions, CallResult } from './checked-client';
import { startConnector } from './harness';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from './processes';
import { parseExposition } from './prometheus-text';
import type { WebhookReceiver } from './webhook-receiver';

/** The webhook variables of a connector under test sending to `receiver` (a loopback address, hence the opt-in). */
export function webhookEnv(receiver: WebhookReceiver, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    WEBHOOK_URL: receiver.url,
    WEBHOOK_SECRET: receiver.secret,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    PLACEHOLDER_JOB_MS: '20',
    ...overrides,
  };
}

/**
 * A connector sending events: on memory one in-process connector; on Redis (`processes`) a built API process
 * and a built worker process sharing a private Redis, or (`in-process`) one process running both, which is
 * what lets a test script the jobs' processor.
 */
export interface WebhookStand {
  readonly kind: BackendKind;
  readonly baseUrl: string;
  readonly linkSecret: string;
  readonly publicUrl: string;
  readonly redis?: TestRedis;
  readonly env: Record<string, string>;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** `connector_webhook_deliveries_total{type,outcome}` of the process that sends. */
  deliveries(type: string, outcome: string): Promise<number>;
  /** The spawned worker (Redis, `processes` only). */
  worker?: ProcessUnderTest;
  /** Replaces the worker with a new one on `env` plus `overrides` (Redis, `processes` only). */
  restartWorker(overrides?: Record<string, string>): Promise<ProcessUnderTest>;
  close(): Promise<void>;
}

async function counterValue(metricsUrl: string, type: string, outcome: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const sample = parseExposition(text).samples.find(
    (s) => s.name === 'connector_webhook_deliveries_total' && s.labels.type === type && s.labels.outcome === outcome,
  );
  return sample?.value ?? 0;
}

/** Starts a stand. `operations` (in-process stands only) replaces the registry, e.g. with scripted jobs. */
export async function startWebhookStand(
  kind: BackendKind,
  env: Record<string, string>,
  { mode = 'processes', operations }: { mode?: 'processes' | 'in-process'; operations?: Operation[] } = {},
): Promise<WebhookStand> {
  if (kind === 'memory' || mode === 'in-process') {
    const connector = await startConnector(kind, env, operations ? { operations } : {});
    return {
      kind,
      baseUrl: connector.baseUrl,
      linkSecret: connector.config.linkSecret,
      publicUrl: connector.config.publicUrl,
      env,
      call: connector.call,
      deliveries: (type, outcome) => counterValue(connector.metricsUrl, type, outcome),
      restartWorker: () => Promise.reject(new Error('an in-process stand has no worker process')),
      close: () => connector.close(),
    };
  }
  const redis = await startRedis();
  const shared = redisEnv(redis.url, 'hooks:', env);
  let api: ApiUnderTest | undefined;
  let worker: ProcessUnderTest | undefined;
  try {
    [api, worker] = await Promise.all([startApiProcess(shared), startWorkerProcess(shared)]);
    await waitFor(() => api!.call('GET', '/readyz').then((r) => r.status === 200), { what: 'the API to be ready' });
    await waitFor(() => fetch(`http://127.0.0.1:${worker!.metricsPort}/readyz`).then((r) => r.status === 200), {
      what: 'the worker to be ready',
    });
  } catch (error) {
    await Promise.all([api?.kill(), worker?.kill()]);
    await redis.stop();
    throw error;
  }
  const stand: WebhookStand = {
    kind,
    baseUrl: api.baseUrl,
    linkSecret: shared.LINK_SECRET,
    publicUrl: shared.PUBLIC_URL,
    redis,
    env: shared,
    call: api.call,
    deliveries: (type, outcome) => counterValue(`http://127.0.0.1:${stand.worker!.metricsPort}/metrics`, type, outcome),
    worker,
    restartWorker: async (overrides = {}) => {
      await stand.worker?.kill();
      stand.worker = await startWorkerProcess({ ...shared, ...overrides });
      return stand.worker;
    },
    close: async () => {
      await Promise.all([api!.kill(), stand.worker?.kill()]);
      await redis.stop();
    },
  };
  return stand;
}

/** `POST /v1/link` on a stand: the new connection's token and id. */
export async function linkOn(stand: WebhookStand, subject: string): Promise<{ token: string; connection_id: string }> {
  const res = await stand.call('POST', '/v1/link', { body: { subject }, headers: { 'x-link-secret': stand.linkSecret } });
  expect(res.status, res.text).to.equal(201);
  return res.body;
}
