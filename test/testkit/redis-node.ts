import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataNodeLines, launchRedis, onFreePorts } from './redis-process';

/** A private single `redis-server` owned by one test file (or one bench run); never a shared or system Redis. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** The server process's id while it runs (the bench reads its CPU time from /proc). */
  readonly pid: number | undefined;
  /** Stops the server (SIGKILL); it can be started again on the same port with `restart()`. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (an empty dataset unless `durable`). */
  restart(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  stop(): Promise<void>;
  /** What the server wrote to its log so far (for failure messages). */
  log(): string;
}

/**
 * Starts `redis-server` on a free loopback port with no persistence and `noeviction` (what the connector
 * requires), in a private temporary directory, and resolves once it answers as this very process. With
 * `durable`, every write is also appended (and fsynced) to a file in that directory, so that a killed and
 * restarted server comes back with its data, as a production Redis does.
 */
export async function startRedis({ durable = false }: { durable?: boolean } = {}): Promise<TestRedis> {
  // Always a private directory: a server that becomes a replica writes the primary's snapshot to its
  // directory, and a later server started in the same directory would load it at start.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-test-redis-'));
  const base = dataNodeLines({});
  const lines = durable ? [...base.filter((line) => !line.startsWith('appendonly')), 'appendonly yes', 'appendfsync always'] : base;
  try {
    const node = await onFreePorts(1, ([port]) => launchRedis({ port, dir, lines, access: {} }));
    return {
      port: node.port,
      url: `redis://127.0.0.1:${node.port}`,
      get pid() {
        return node.pid;
      },
      kill: () => node.kill(),
      restart: () => node.restart(),
      stop: async () => {
        await node.kill();
        rmSync(dir, { recursive: true, force: true });
      },
      log: () => node.log(),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
