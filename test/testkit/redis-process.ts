import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { freePorts } from './free-port';
import { GiveUp, waitFor } from './wait-for';

/** How the test itself reaches a node it started: ACL credentials and, for TLS nodes, the CA to trust. */
export interface RedisAccess {
  username?: string;
  password?: string;
  /** PEM of the CA that signed the nodes' certificates; set means the nodes speak only TLS. */
  ca?: string;
}

/** One `redis-server` (data node or sentinel) that a test started, in its own directory. */
export interface RedisProcess {
  readonly port: number;
  readonly dir: string;
  /** The current process's id; undefined before the first start. */
  readonly pid: number | undefined;
  alive(): boolean;
  /** SIGKILL, as when a machine dies; resolves once the process has exited. */
  kill(): Promise<void>;
  /**
   * Starts the server again on the same port and directory (killing it first if it runs), with the same
   * config plus `extraLines`; its dataset starts empty (no persistence), a cluster node keeps its nodes.conf.
   */
  restart(extraLines?: readonly string[]): Promise<void>;
  /** What the server wrote to its log file so far (for failure messages). */
  log(): string;
}

/** Every process any fixture started and has not yet reaped, killed if the test run exits without cleaning up. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Runs one command on a node over a fresh connection (no retries), then closes it. */
export async function redisCommand(
  port: number,
  access: RedisAccess,
  args: readonly (string | number)[],
  timeoutMs = 3000,
): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    username: access.username,
    password: access.password,
    tls: access.ca ? { ca: access.ca } : undefined,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    client.disconnect();
  }
}

/** Parses the `field:value` lines of an INFO or CLUSTER INFO answer. */
export function infoFields(text: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of String(text).split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  return fields;
}

/** Another process took a port between its choice and the server's bind. */
export class PortTakenError extends GiveUp {}

/**
 * Calls `launch` with `count` fresh free ports, and again with fresh ones (up to five times) while it fails
 * because another process took one of them first: other test runs pick free ports on the same machine.
 */
export async function onFreePorts<T>(count: number, launch: (ports: number[]) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(await freePorts(count));
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 5) throw error;
    }
  }
}

/**
 * Writes `lines` as the config file `<dir>/redis.conf` (plus the port, the loopback bind, the directory and
 * the log file) and starts `redis-server` on it (`--sentinel` for a sentinel). Resolves once the server on
 * `port` answers with this very process's pid, so that a port taken by someone else between the choice and
 * the start is reported instead of used.
 */
export async function launchRedis(options: {
  port: number;
  dir: string;
  lines: readonly string[];
  access: RedisAccess;
  sentinel?: boolean;
  /** `port` is a TLS port and the plain port is off. */
  tls?: boolean;
}): Promise<RedisProcess> {
  const { port, dir, access } = options;
  mkdirSync(dir, { recursive: true });
  const logFile = path.join(dir, 'redis.log');
  const confFile = path.join(dir, options.sentinel ? 'sentinel.conf' : 'redis.conf');
  const portLines = options.tls ? ['port 0', `tls-port ${port}`] : [`port ${port}`];
  let child: ChildProcess | undefined;
  let exited = Promise.resolve();
  const log = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const alive = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;
  const kill = async (): Promise<void> => {
    if (alive()) child!.kill('SIGKILL');
    await exited;
  };
  const start = async (extraLines: readonly string[]): Promise<void> => {
    const conf = [...portLines, 'bind 127.0.0.1', `dir ${dir}`, `logfile ${logFile}`, 'loglevel notice', ...options.lines, ...extraLines];
    writeFileSync(confFile, `${conf.join('\n')}\n`, { mode: 0o600 });
    const proc = spawn('redis-server', [confFile, ...(options.sentinel ? ['--sentinel'] : [])], { stdio: 'ignore' });
    child = proc;
    running.add(proc);
    exited = new Promise<void>((resolve) =>
      proc.once('exit', () => {
        running.delete(proc);
        resolve();
      }),
    );
    // A dead process or a stranger on the port ends the wait at once, killing what this call started.
    try {
      await waitFor(
        async () => {
          if (!alive()) {
            const tail = log().slice(-2000);
            throw /Address already in use/.test(tail)
              ? new PortTakenError(`port ${port} is taken`)
              : new GiveUp(`redis-server on ${port} exited: ${tail}`);
          }
          const info = infoFields(await redisCommand(port, access, ['INFO', 'server'], 1000));
          if (info.process_id !== String(proc.pid))
            throw new PortTakenError(`port ${port} is served by another process (pid ${info.process_id})`);
          return true;
        },
        { timeoutMs: 10_000, intervalMs: 20, what: `redis-server ${options.sentinel ? '(sentinel) ' : ''}on ${port}` },
      );
    } catch (error) {
      await kill();
      throw error;
    }
  };

  await start([]);
  return {
    port,
    dir,
    get pid() {
      return child?.pid;
    },
    alive,
    kill,
    log,
    restart: async (extraLines = []) => {
      await kill();
      await start(extraLines);
    },
  };
}

/** Config lines every data node gets: no persistence, no eviction, fast full syncs, and the ACL if any. */
export function dataNodeLines(access: RedisAccess): string[] {
  const lines = [
    'save ""',
    'appendonly no',
    'maxmemory-policy noeviction',
    'protected-mode yes',
    // A replica's first full sync starts at once instead of after diskless sync's default 5 s gathering delay.
    'repl-diskless-sync yes',
    'repl-diskless-sync-delay 0',
  ];
  if (access.password !== undefined) {
    const user = access.username ?? 'default';
    // The default user is switched off when a named user exists, so that only the credentials given work.
    if (user !== 'default') lines.push('user default off');
    lines.push(`user ${user} on >${access.password} ~* &* +@all`);
    lines.push(`masteruser ${user}`, `masterauth ${access.password}`);
  }
  return lines;
}
