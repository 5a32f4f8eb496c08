import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from './free-port';
import { accepts, stopChild } from './node-process';
import { GiveUp, waitFor } from './wait-for';

/** How HAProxy health-checks the API slots: what an ingress in front of the API's pods does with `/readyz`. */
export const HEALTH_CHECK = { interMs: 500, fall: 2, rise: 2 };

/** A foreground HAProxy in front of a fixed set of API slots (`127.0.0.1:<port>`), one free loopback port. */
export interface Haproxy {
  readonly url: string;
  /** HAProxy's view of each slot (`UP`, `DOWN`, `MAINT`, …), by slot index, from its admin socket. */
  slotStates(): Promise<string[]>;
  /** What HAProxy printed (alerts and warnings only: `-q` keeps it quiet otherwise). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The configuration: keep-alive on both sides, round robin over every slot, `GET /readyz` checked every
 * {@link HEALTH_CHECK} interval (HTTP/1.1 with a Host, as an ingress controller's upstream check sends it).
 * A slot with nothing listening fails its check and takes no traffic, so replacing a process is starting the
 * new one on a free slot and stopping the old one, as endpoints come and go behind a Service. A request that
 * cannot connect is sent to another slot (`option redispatch`); nothing that reached a server is retried.
 */
export function haproxyConfig(port: number, slotPorts: readonly number[], socket: string): string {
  const check = `inter ${HEALTH_CHECK.interMs}ms fastinter ${HEALTH_CHECK.interMs / 2}ms downinter ${HEALTH_CHECK.interMs}ms fall ${HEALTH_CHECK.fall} rise ${HEALTH_CHECK.rise}`;
  return [
    'global',
    '  maxconn 2000',
    `  stats socket ${socket} mode 600 level admin`,
    'defaults',
    '  mode http',
    '  option http-keep-alive',
    '  option forwardfor',
    '  option redispatch',
    '  retries 2',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 60s',
    'frontend connector',
    `  bind 127.0.0.1:${port}`,
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost',
    '  http-check expect status 200',
    `  default-server ${check}`,
    ...slotPorts.map((slotPort, i) => `  server slot${i} 127.0.0.1:${slotPort} check`),
    '',
  ].join('\n');
}

/** Starts `haproxy -f <dir>/haproxy.cfg -db` with its config and admin socket in `dir`; resolves once it accepts. */
export async function startHaproxy(dir: string, slotPorts: readonly number[]): Promise<Haproxy> {
  const port = await freePort();
  const socket = path.join(dir, 'haproxy.sock');
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, slotPorts, socket));
  const log = path.join(dir, 'haproxy.log');
  writeFileSync(log, '');
  const child: ChildProcess = spawn('haproxy', ['-f', config, '-db', '-q'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const append = (chunk: Buffer) => writeFileSync(log, chunk, { flag: 'a' });
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output = () => readFileSync(log, 'utf8').slice(-4000);
  await waitFor(
    async () => {
      const failed = await Promise.race([spawnError, new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)))]);
      if (failed) throw new GiveUp(`could not start haproxy (is it installed?): ${failed.message}`);
      if (child.exitCode !== null) throw new GiveUp(`haproxy exited with ${child.exitCode}: ${output()}`);
      return accepts(port);
    },
    { timeoutMs: 10_000, intervalMs: 50, what: 'haproxy' },
  );
  return {
    url: `http://127.0.0.1:${port}`,
    slotStates: async () => parseStates(await adminCommand(socket, 'show stat'), slotPorts.length),
    output,
    stop: stopChild(child, exited),
  };
}

/** Sends one command to HAProxy's admin socket and resolves with its whole answer. */
function adminCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let answer = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk: string) => (answer += chunk));
    connection.once('error', reject);
    connection.once('end', () => resolve(answer));
    connection.once('connect', () => connection.write(`${command}\n`));
  });
}

/** The `status` column of the `api` backend's servers in `show stat` (CSV with a `# ` header line). */
function parseStates(csv: string, slots: number): string[] {
  const [header, ...rows] = csv.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const states = new Array<string>(slots).fill('unknown');
  for (const row of rows) {
    const cells = row.split(',');
    const slot = /^slot(\d+)$/.exec(cells[at('svname')] ?? '');
    if (cells[at('pxname')] === 'api' && slot) states[Number(slot[1])] = cells[at('status')];
  }
  return states;
}
