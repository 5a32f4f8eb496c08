import type http from 'node:http';
import type { Logger } from 'pino';

/**
 * Stops a server from accepting, lets in-flight requests finish, and after `graceMs` cuts whatever is left.
 * Idle keep-alive sockets are closed at once so they do not hold the drain open.
 */
export function closeServer(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * How long after its grace period a stopping process exits whatever it is doing. The chart's
 * terminationGracePeriodSeconds must leave room for it (`test/k8s/chart.test.ts`, docs/deploying.md).
 */
export const HARD_DEADLINE_SLACK_MS = 2000;

/**
 * Runs `shutdown` once on SIGTERM or SIGINT, then exits 0 (1 if it failed). A hard deadline
 * {@link HARD_DEADLINE_SLACK_MS} past the grace period makes sure the process never outlives the pod's
 * termination grace.
 */
export function onTerminate(shutdown: () => Promise<void>, { graceMs, logger }: { graceMs: number; logger: Logger }): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => exit(logger, 1), graceMs + HARD_DEADLINE_SLACK_MS).unref();
    shutdown().then(
      () => exit(logger, 0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(logger, 1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

function exit(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
}
