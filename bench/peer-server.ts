import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../test/testkit/free-port';
import { accepts, stopChild } from '../test/testkit/node-process';
import { waitUntil } from './bench-processes';
import { option } from './compare-cli';
import { track } from './connector-processes';

/** Another connector to load beside ours (`bench:peer`): where it answers and the process to read CPU from. */
export interface PeerServer {
  base: string;
  pid: number;
}

/**
 * The peer the command line names. `--peer-command '<command>'`: the bench runs it through `sh` with `PORT` set
 * to a free loopback port and the bench's Node first on `PATH` (so `node …` in it runs on the Node measured),
 * waits until the port accepts connections, and stops it at the end; its output goes to `peer.log` in `logDir`.
 * `--peer <url> --peer-pid <pid>`: a server already running, which the bench only loads.
 */
export async function startPeer(logDir: string): Promise<PeerServer> {
  const command = option('peer-command', '');
  if (!command) {
    const base = option('peer', '');
    const pid = Number(option('peer-pid', ''));
    if (!base || !Number.isInteger(pid)) throw new Error("name the peer: --peer-command '<command>', or --peer <url> --peer-pid <pid>");
    return { base: base.replace(/\/+$/, ''), pid };
  }
  const port = await freePort();
  const log = openSync(path.join(logDir, 'peer.log'), 'a');
  // `exec` makes the shell become the server, so the pid the bench reads CPU from is the server's.
  const child = spawn('sh', ['-c', `exec ${command}`], {
    env: { ...process.env, PORT: String(port), PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await track(Promise.resolve({ stop: stopChild(child, exited) }));
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`the peer exited with ${child.exitCode} (see ${logDir}/peer.log)`);
      return accepts(port);
    },
    30_000,
    'the peer to listen',
  );
  return { base: `http://127.0.0.1:${port}`, pid: child.pid! };
}
