import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childEnv } from './child-env';
import { GiveUp, waitFor } from './wait-for';

/**
 * The repository's root: the nearest directory above this file that holds package.json and the API's
 * sources. The same from the sources (`testkit/`) and from the bench's compiled copy (`bench/dist/testkit/`),
 * whose package.json is the bench's own.
 */
export function repoRoot(): string {
  let dir = __dirname;
  while (!(existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'api', 'main.ts')))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no repository root above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

/** The connector's built tree (`npm run build`): the processes tests and the bench start run from it. */
export function connectorDist(): string {
  return path.join(repoRoot(), 'dist');
}

/**
 * The Node flags production starts the connector with: those of `npm start` (the image's CMD is the same,
 * `test/k8s/dockerfile.test.ts`). Every process started here, the bench's baselines included, gets them.
 */
export const NODE_FLAGS: readonly string[] = (() => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.start.split(' ');
  return words.slice(1, -1);
})();

/** A child process started by {@link startNode}, owned and stopped by whoever started it. */
export interface NodeProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** What it printed, for the error when it fails to start or dies mid-run. */
  output(): string;
  stop(): Promise<void>;
}

/** Where every process's output goes: a file, so that nothing in the starting process has to read it under load. */
let logDir = '';

/** Sets the directory for the processes' log files (one `<name>.log` each). */
export function setLogDir(dir: string): void {
  logDir = dir;
}

function logFile(name: string): { path: string; fd: number } {
  const file = path.join(logDir, `${name}.log`);
  return { path: file, fd: openSync(file, 'a') };
}

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
export function stopChild(child: ChildProcess, exited: Promise<void>): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
}

function own(name: string, child: ChildProcess, log: string): NodeProcess {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    // Only the tail matters (a start-up error or the last lines before a crash).
    output: () => readFileSync(log, 'utf8').slice(-4000),
    stop: stopChild(child, exited),
  };
}

/**
 * Starts a built entry point (`api/main.js`, `worker/main.js`, the bench's `bench/bare-server.js`, …) of the
 * tree `root` ({@link connectorDist} unless another one is given) with exactly `env` (plus PATH) and waits
 * until `ready` holds. Every Node process is started the same way (production's {@link NODE_FLAGS}), so a
 * baseline and the connector pay the same start-up flags and environment. With `cgroupProcs` (a cgroup's
 * `cgroup.procs`) the process joins that cgroup before Node starts, so Node sizes its heap under the
 * cgroup's limit as in a container.
 */
export async function startNode(
  name: string,
  entry: string,
  env: Record<string, string>,
  ready: (output: () => string) => Promise<boolean>,
  nodeArgs: string[] = [],
  root = connectorDist(),
  cgroupProcs?: string,
): Promise<NodeProcess> {
  const log = logFile(name);
  const command = [process.execPath, ...NODE_FLAGS, ...nodeArgs, path.join(root, entry)];
  // The shell writes its own pid into the cgroup, then becomes Node: the child's pid stays the one measured.
  const [file, ...args] = cgroupProcs ? ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', cgroupProcs, ...command] : command;
  // In a cgroup the output goes through a pipe to a `cat` outside it, as a container's goes to its runtime:
  // written to the file directly, the log's page cache would be charged to the cgroup and fill its limit.
  const sink = cgroupProcs ? spawn('cat', [], { stdio: ['pipe', log.fd, log.fd] }) : undefined;
  const output = sink?.stdin ?? log.fd;
  const child = spawn(file, args, {
    cwd: root,
    env: childEnv({ NODE_ENV: 'production', ...env }),
    stdio: ['ignore', output, output],
  });
  sink?.stdin?.destroy();
  closeSync(log.fd);
  const proc = own(name, child, log.path);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new GiveUp(`${name} exited with ${child.exitCode}: ${proc.output()}`);
        return ready(proc.output);
      },
      { timeoutMs: 20_000, intervalMs: 50, what: name },
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return proc;
}

/** True when something accepts TCP connections on `port` of `host` (the loopback unless said). */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True when `url` answers 2xx. */
export async function answers(url: string): Promise<boolean> {
  const response = await fetch(url).catch(() => undefined);
  return response?.ok ?? false;
}
