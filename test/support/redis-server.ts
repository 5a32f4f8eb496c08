import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/** A private redis-server owned by one test file; never a shared or system Redis. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL); it can be started again on the same port with `restart()`. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (an empty dataset: `--save ""`). */
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

/** Starts `redis-server` on a free port with no persistence and `noeviction`, and waits until it accepts. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const proc = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
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
    stop: halt,
  };
}
