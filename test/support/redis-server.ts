import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../testkit/free-port';
import { waitFor } from '../../testkit/wait-for';

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
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The process id of the server answering on `port` (INFO server over a raw socket). Another test run may
 * have taken the same free port a moment earlier; then the server that answers is not ours.
 */
function serverPid(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.once('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      const pid = /process_id:(\d+)/.exec(reply);
      if (pid) {
        socket.destroy();
        resolve(Number(pid[1]));
      }
    });
    socket.once('error', () => resolve(undefined));
    socket.once('close', () => resolve(undefined));
  });
}

/**
 * Starts `redis-server` on a free port with no persistence and `noeviction`, and waits until it accepts.
 * With `durable`, every write is also appended (and fsynced) to a file in a private temporary directory, so
 * that a killed and restarted server comes back with its data, as a production Redis does.
 */
export async function startRedis(options: { durable?: boolean } = {}): Promise<TestRedis> {
  // A port taken by another test run between our check and our bind makes our server exit: try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startRedisOn(port, options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 5) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startRedisOn(port: number, { durable = false }: { durable?: boolean }): Promise<TestRedis> {
  let child: ChildProcess | undefined;
  // Always a private directory: a server that becomes a replica writes the primary's snapshot to its
  // directory, and a later server started in the same directory would load it at start.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-test-redis-'));
  const persistence = durable ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir] : ['--appendonly', 'no', '--dir', dir];

  const launch = async (): Promise<void> => {
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...persistence,
        '--maxmemory-policy',
        'noeviction',
        '--protected-mode',
        'yes',
      ],
      { stdio: 'ignore' },
    );
    child = proc;
    await waitFor(() => proc.exitCode !== null || canConnect(port), { timeoutMs: 10_000, what: `redis-server on ${port}` });
    if (proc.exitCode !== null || (await serverPid(port)) !== proc.pid) {
      proc.kill('SIGKILL');
      throw new PortTakenError(`port ${port} is served by another process`);
    }
  };
  const halt = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };

  try {
    await launch();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: halt,
    restart: launch,
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
