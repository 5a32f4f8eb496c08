import http from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../shared/config/config';
import { listen } from '../shared/lifecycle/listen';
import { closeServer } from '../shared/lifecycle/shutdown';
import { Metrics } from '../shared/metrics/metrics';
import { createMetricsServer } from '../shared/metrics/metrics-server';
import type { CimdFetchOptions } from '../shared/oauth/cimd-fetcher';
import type { Operation } from '../shared/operations/operation';
import { buildProcessors, OPERATIONS } from '../shared/operations/registry';
import { createServices } from '../shared/services';
import { createBackend } from '../shared/stores/create-backend';
import { createJobWorker } from '../worker/job-worker';
import { createApp } from './app';

/** A listening API with its metrics listener. */
export interface RunningApi {
  port: number;
  metricsPort: number;
  /** Stops accepting, drains in-flight requests and jobs within the grace period, then closes the backend. */
  close(): Promise<void>;
}

/** Options for embedding the API (tests, or a template user with their own registry). */
export interface StartApiOptions {
  /** The operations registry; defaults to the built-in one. */
  operations?: readonly Operation[];
  /**
   * On Redis, also consume the job queue in this process (`npm run dev`, tests). `npm start` leaves it off:
   * in production the API only enqueues and worker processes run the jobs. The memory backend always runs
   * its jobs in-process, so this changes nothing there.
   */
  runWorker?: boolean;
  /** Tests only: lets the Client ID Metadata Document fetcher reach a local https server. */
  cimdFetch?: CimdFetchOptions;
}

/** Wires configuration, backend, services and listeners: everything `npm start` and `npm run dev` run. */
export async function startApi(config: Config, logger: Logger, { operations = OPERATIONS, runWorker = false, cimdFetch }: StartApiOptions = {}): Promise<RunningApi> {
  const metrics = new Metrics();
  const processors = buildProcessors({ placeholderJobMs: config.placeholderJobMs }, operations);
  const backend = createBackend(config, processors, metrics, logger);
  const jobWorker = runWorker && backend.kind === 'redis' ? createJobWorker({ config, processors, metrics, logger }) : undefined;
  const { services, tokens } = createServices(config, backend, metrics, cimdFetch);
  const app = createApp({ config, backend, services, tokens, metrics, logger, operations });

  const server = http.createServer(app);
  const metricsServer = createMetricsServer(metrics);
  const [port, metricsPort] = await Promise.all([listen(server, config.port), listen(metricsServer, config.metricsPort)]);
  logger.info({ port, metrics_port: metricsPort, public_url: config.publicUrl, backend: backend.kind, runs_jobs: backend.kind === 'memory' || !!jobWorker }, 'api listening');

  return {
    port,
    metricsPort,
    close: async () => {
      await closeServer(server, config.shutdownGraceMs);
      await jobWorker?.close(config.shutdownGraceMs);
      await backend.close(config.shutdownGraceMs);
      await closeServer(metricsServer, 0);
    },
  };
}

