import { thisNode } from './bench-node';
import { loadAverage, round } from './bench-processes';
import { median, option, runComparison } from './compare-cli';
import { inLogDir, link, post, startApi } from './connector-processes';
import { freshKeys } from './http-load';
import { type PeerServer, startPeer } from './peer-server';
import { connectorScenarios } from './scenarios';
import { JOB_BODY, type Loaded, measureTogether } from './together-load';

// `npm run bench:peer -- --peer-command '<command>' [--peer-job-body '<json>'] [--rounds 5] [--seconds 5]
// [--routes me,job,replay,read]`, or `--peer <url> --peer-pid <pid>` for a server already running: the built API
// on its embedded backend beside another implementation of the contract, both loaded at the same moment on
// every route they share, and each one's CPU per request from /proc. The peer must speak the contract's routes:
// `POST /v1/link` `{subject}` answering `{token}` (sent with the bench's link secret), bearer tokens,
// `GET /v1/me`, `POST /v1/jobs` with an `Idempotency-Key` answering `{id}`, and `GET /v1/jobs/{id}`. Its job
// body may differ (`--peer-job-body`, ours by default). bench/README.md has the command its figures were taken with.

/** A route both serve: ours and the peer's, loaded together. */
interface Route {
  name: string;
  ours: Loaded;
  peer: Loaded;
}

/** The peer's side of every route: links a subject, stores the job its replay and job read use. */
async function peerRoutes(peer: PeerServer): Promise<Record<string, Loaded>> {
  const auth = await link(peer.base);
  const body = option('peer-job-body', JOB_BODY.body);
  const stored = await post(`${peer.base}/v1/jobs`, { ...auth, 'idempotency-key': 'bench-replay' }, JSON.parse(body));
  const on = (label: string, url: string, options: Loaded['options']): Loaded => ({ label, pid: peer.pid, url, options });
  return {
    me: on('peer GET /v1/me', `${peer.base}/v1/me`, { headers: auth }),
    job: on('peer fresh POST /v1/jobs', peer.base, {
      requests: [{ method: 'POST', path: '/v1/jobs', headers: auth, body, setupRequest: freshKeys(`peer-${Date.now()}`) }],
    }),
    replay: on('peer replayed POST /v1/jobs', `${peer.base}/v1/jobs`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'bench-replay' },
      body,
    }),
    jobRead: on('peer GET /v1/jobs/{id}', `${peer.base}/v1/jobs/${String(stored.id)}`, { headers: auth }),
  };
}

/** Our API on the embedded backend and the peer; the routes both serve. */
async function startBoth(logDir: string): Promise<Route[]> {
  const api = await startApi('api', undefined);
  const pid = api.proc.child.pid!;
  const { scenarios, jobRead } = await connectorScenarios(api.base, pid);
  const ours = (id: string, label: string): Loaded => {
    const scenario = id === 'j' ? jobRead : scenarios.find((s) => s.id === id)!;
    return { label, pid, url: scenario.url, options: scenario.options };
  };
  const peer = await peerRoutes(await startPeer(logDir));
  const routes = [
    { key: 'me', name: 'GET /v1/me', ours: ours('b', 'ours GET /v1/me'), peer: peer.me },
    { key: 'job', name: 'fresh paid job', ours: ours('d', 'ours fresh POST /v1/jobs'), peer: peer.job },
    { key: 'replay', name: 'replay', ours: ours('e', 'ours replayed POST /v1/jobs'), peer: peer.replay },
    { key: 'read', name: 'job read', ours: ours('j', 'ours GET /v1/jobs/{id}'), peer: peer.jobRead },
  ];
  // `--routes job,read`: only those (a profile of one route's cost, `BENCH_CPU_PROF_DIR`, wants no other in it).
  const only = option('routes', routes.map((route) => route.key).join(',')).split(',');
  return routes.filter((route) => only.includes(route.key));
}

async function main(): Promise<void> {
  const rounds = Number(option('rounds', '5'));
  const seconds = Number(option('seconds', '5'));
  process.stdout.write(`both servers on ${thisNode()}; load average ${loadAverage()}\n`);
  await inLogDir('peer', async (logDir) => measureRoutes(await startBoth(logDir), rounds, seconds));
  process.stdout.write(`load average at the end ${loadAverage()}\n`);
}

/** Loads each route's two servers together, round after round, and prints the peer's CPU over ours. */
async function measureRoutes(routes: Route[], rounds: number, seconds: number): Promise<void> {
  const ratios = new Map<string, number[]>(routes.map((route) => [route.name, []]));
  for (let pass = 1; pass <= rounds; pass += 1) {
    for (const route of routes) {
      const [oursUs, peerUs] = await measureTogether([route.ours, route.peer], seconds);
      ratios.get(route.name)!.push(peerUs / oursUs);
      process.stdout.write(`round ${pass} (${route.name}): ours ${round(oursUs, 1)} µs, peer ${round(peerUs, 1)} µs\n`);
    }
  }
  process.stdout.write(`\nCPU per request, the peer's over ours (above 1: ours is cheaper), median of ${rounds} rounds on ${thisNode()}\n`);
  for (const route of routes) {
    const of = ratios.get(route.name)!;
    process.stdout.write(`${route.name}: ${round(median(of))} (rounds ${of.map((r) => round(r)).join(', ')})\n`);
  }
}

runComparison('peer', main);
