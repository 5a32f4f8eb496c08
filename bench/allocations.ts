import path from 'node:path';
import autocannon from 'autocannon';
import { connectorDist, type NodeProcess } from '../test/testkit/node-process';
import { thisNode } from './bench-node';
import { BENCH_DIST, round, startRedis, waitUntil } from './bench-processes';
import { option, runComparison } from './compare-cli';
import { inLogDir, oneNodeEnv, startApi, startBareServer, startFloorServer, track } from './connector-processes';
import { connectorScenarios } from './scenarios';
import { JOB_BODY, type Loaded, TOGETHER_CONNECTIONS } from './together-load';

// `npm run bench:allocations -- [--requests 20000] [--warmup <requests>]`: the bytes each kind of request allocates on the JavaScript
// heap, in the bare Express route of (a), the floor server's routes (`floor-server.ts`) and the built API on
// Redis, each started with `allocation-probe.js` preloaded (which explains the measure). Every server is
// loaded alone, `--requests` requests after `--warmup` unmeasured (half as many unless said): the count does not depend on what else the
// machine does, so nothing needs pairing here.

/** A server and the probe in it: the process whose output carries the probe's lines. */
interface Probed extends Loaded {
  proc: NodeProcess;
}

/** What the probe printed for one window. */
interface Allocation {
  allocated: number;
  v8Total: number | null;
  collections: number;
}

/** Windows each server's probe has opened and closed so far (its numbering), by process id. */
const probeWindows = new Map<number, number>();

/** Sends SIGUSR2 to the server and waits for the probe's line of that window; returns what followed its number. */
async function signalProbe(server: Probed, windowNumber: number): Promise<string> {
  process.kill(server.pid, 'SIGUSR2');
  const mark = `allocation-probe ${windowNumber} `;
  let line = '';
  await waitUntil(
    async () => {
      const output = server.proc.output();
      const at = output.lastIndexOf(mark);
      if (at === -1) return false;
      line = output.slice(at + mark.length).split('\n')[0];
      return true;
    },
    10_000,
    `${server.label}'s allocation probe`,
  );
  return line;
}

/** Heap bytes per request of `requests` requests to one server, after `warmup` unmeasured. */
async function bytesPerRequest(server: Probed, requests: number, warmup: number): Promise<Allocation & { requests: number }> {
  const load = (amount: number) => autocannon({ url: server.url, ...server.options, connections: TOGETHER_CONNECTIONS, amount });
  if (warmup > 0) await load(warmup);
  const counts = probeWindows.get(server.pid) ?? 0;
  await signalProbe(server, counts + 1);
  const result = await load(requests);
  const closed = JSON.parse(await signalProbe(server, counts + 2)) as Allocation;
  probeWindows.set(server.pid, counts + 2);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${server.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const total = result.requests.total;
  return {
    requests: total,
    allocated: closed.allocated / total,
    v8Total: closed.v8Total === null ? null : closed.v8Total / total,
    collections: closed.collections,
  };
}

async function main(): Promise<void> {
  const requests = Number(option('requests', '20000'));
  const warmup = Number(option('warmup', String(Math.floor(requests / 2))));
  process.stdout.write(`every server on ${thisNode()}\n`);
  await inLogDir('allocations', async () => printFigures(await startServers(), requests, warmup));
}

/** Each server's heap bytes per request, measured one server at a time. */
async function printFigures(servers: Awaited<ReturnType<typeof startServers>>, requests: number, warmup: number): Promise<void> {
  process.stdout.write("heap bytes allocated per request (used-heap growth plus what every collection freed; V8's own count beside it)\n");
  const kb = (bytes: number) => `${round(bytes / 1024, 1)} KB`;
  for (const server of servers) {
    const figure = await bytesPerRequest(server, requests, warmup);
    const v8 = figure.v8Total === null ? '' : ` (V8's count ${kb(figure.v8Total)})`;
    process.stdout.write(
      `${server.label}: ${kb(figure.allocated)}${v8} over ${figure.requests} requests, ${figure.collections} collections\n`,
    );
  }
}

/** A private Redis, then the three servers with the probe preloaded; each route to measure. */
async function startServers(): Promise<Probed[]> {
  const probe = ['--require', path.join(BENCH_DIST, 'bench', 'allocation-probe.js')];
  const redis = await track(startRedis());
  const bare = await startBareServer(undefined, probe);
  const floor = await startFloorServer(oneNodeEnv(redis.url), probe);
  const api = await startApi('api', oneNodeEnv(redis.url), { root: connectorDist(), nodeArgs: probe, keyPrefix: 'connector:' });
  const { scenarios } = await connectorScenarios(api.base, api.proc.child.pid);
  const onApi = (label: string, id: string): Probed => {
    const scenario = scenarios.find((s) => s.id === id)!;
    return { label, pid: api.proc.child.pid!, proc: api.proc, url: scenario.url, options: scenario.options };
  };
  const onFloor = (label: string, route: string, options: Loaded['options']): Probed => ({
    label,
    pid: floor.proc.child.pid!,
    proc: floor.proc,
    url: `${floor.base}${route}`,
    options,
  });
  return [
    { label: 'bare Express GET /bare', pid: bare.proc.child.pid!, proc: bare.proc, url: bare.url, options: {} },
    onFloor('floor GET /read', '/read', {}),
    onApi('(b) GET /v1/me', 'b'),
    onFloor('floor POST /job', '/job', JOB_BODY),
    onApi('(d) fresh POST /v1/jobs', 'd'),
    onFloor('floor POST /replay', '/replay', JOB_BODY),
    onApi('(e) replayed POST /v1/jobs', 'e'),
  ];
}

runComparison('allocations', main);
