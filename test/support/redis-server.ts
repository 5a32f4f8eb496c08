import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/** A private redis-server owned by one test file; never a shared or system Redis. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL); it can be started again on the same port with `restart()`. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (an empty dataset unless `durable`). */
  restart(): Promise<void>;
  /** Stops the server for good. */
  stop(): Promise<void>;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `redis-server` on a free port with no persistence and `noeviction`, and waits until it accepts.
 * With `durable`, every write is also appended (and fsynced) to a file in a private temporary directory, so
 * that a killed and restarted server comes back with its data, as a production Redis does.
 */
export async function startRedis({ durable = false }: { durable?: boolean } = {}): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const dir = durable ? mkdtempSync(path.join(os.tmpdir(), 'connector-test-redis-')) : undefined;
  const persistence = dir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir] : ['--appendonly', 'no'];

  const launch = async (): Promise<void> => {
    const proc = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence,
      '--maxmemory-policy', 'noeviction', '--protected-mode', 'yes',
    ], { stdio: 'ignore' });
    child = proc;
    await waitFor(() => canConnect(port), { timeoutMs: 10_000, what: `redis-server on ${port}` });
  };
  const halt = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: halt,
    restart: launch,
    stop: async () => {
      await halt();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
