import { expect } from 'chai';
import { freePort, freePortBeside } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';
import { type CallOptions, type CallResult, checkedClient } from './checked-client';
import { BASE_ENV } from './harness';
import { type Spawned, spawnNode } from './spawn-process';

/** A response from a spawned process, already checked against the published OpenAPI document. */
export type Reply = CallResult;

/** A built process (`dist/…/main.js`) started with its own ports. */
export interface ProcessUnderTest {
  readonly proc: Spawned;
  readonly port: number;
  readonly metricsPort: number;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | string>;
  /** SIGKILL: no cleanup at all, as when a node dies. */
  kill(): Promise<number | string>;
  /** Parsed JSON log lines so far. */
  logLines(): Array<Record<string, unknown>>;
}

/** A spawned API with an HTTP client whose every answer is validated against the published document. */
export interface ApiUnderTest extends ProcessUnderTest {
  readonly baseUrl: string;
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
  link(subject: string): Promise<{ token: string; connection_id: string }>;
}

/** The environment both processes share: BASE_ENV, the Redis URL, and a key prefix. */
export function redisEnv(url: string, prefix: string, overrides: Record<string, string> = {}): Record<string, string> {
  return { ...BASE_ENV, LOG_LEVEL: 'info', REDIS_URL: url, REDIS_KEY_PREFIX: prefix, ...overrides };
}

function wrap(proc: Spawned, port: number, metricsPort: number): ProcessUnderTest {
  return {
    proc,
    port,
    metricsPort,
    stop: async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
      return proc.exited;
    },
    kill: async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      return proc.exited;
    },
    logLines: () =>
      proc
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/**
 * Waits until a spawned process answers `url`, with a deadline generous enough for a loaded machine (many
 * processes start at once); a process that never does is killed, so that a failed start leaves none behind.
 */
async function listening(proc: Spawned, url: string, what: string): Promise<void> {
  try {
    await waitFor(
      () =>
        fetch(url).then(
          (r) => r.ok,
          () => false,
        ),
      { what, timeoutMs: 30_000 },
    );
  } catch (error) {
    proc.child.kill('SIGKILL');
    await proc.exited;
    throw error;
  }
}

/** Starts `node dist/api/main.js` and waits until it listens. */
export async function startApiProcess(env: Record<string, string>): Promise<ApiUnderTest> {
  const port = Number(env.PORT && env.PORT !== '0' ? env.PORT : await freePort());
  const metricsPort = await freePortBeside(port);
  const proc = spawnNode('dist/api/main.js', { ...env, PORT: String(port), METRICS_PORT: String(metricsPort) });
  const baseUrl = `http://127.0.0.1:${port}`;
  await listening(proc, `${baseUrl}/healthz`, `the API on ${port} to listen`);
  const { call } = await checkedClient(baseUrl);

  return {
    ...wrap(proc, port, metricsPort),
    baseUrl,
    call,
    link: async (subject) => {
      // The API listens before its Redis client is connected, and answers 503 until it is (by design).
      await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, { what: `the API on ${port} to be ready` });
      const res = await call('POST', '/v1/link', { body: { subject }, headers: { 'x-link-secret': env.LINK_SECRET } });
      expect(res.status, res.text).to.equal(201);
      return res.body;
    },
  };
}

/** Starts `node dist/worker/main.js` and waits until its probe port answers. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ProcessUnderTest> {
  const metricsPort = await freePort();
  const proc = spawnNode('dist/worker/main.js', { ...env, METRICS_PORT: String(metricsPort) });
  await listening(proc, `http://127.0.0.1:${metricsPort}/healthz`, 'the worker to listen');
  return wrap(proc, 0, metricsPort);
}
