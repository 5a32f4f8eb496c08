import { thisNode } from './bench-node';
import { round, startRedis } from './bench-processes';
import { median, option, runComparison } from './compare-cli';
import { inLogDir, oneNodeEnv, startApi, startBareServer, startFloorServer, track } from './connector-processes';
import { connectorScenarios } from './scenarios';
import { JOB_BODY, type Loaded, measureTogether } from './together-load';

// `npm run bench:floor -- [--rounds 6] [--seconds 6]`: how far the connector's requests are from the least a
// request of their kind must do. Three servers on one Redis, loaded at the same moment (25 connections each,
// as in `bench:compare`): the bare Express route of (a), a floor route (`floor-server.ts`) and the built API.
// Three stretches a round: `GET /read` beside (b) `GET /v1/me`, `POST /job` beside (d) a fresh paid job, and
// `POST /replay` beside (e) its replay.
// Each figure is the server's CPU per request; each ratio is bare's over another's, as the full run's "by CPU".

/** The stretches of a round, in order; `--only` names one. */
const STRETCH_NAMES = ['read', 'job', 'replay'] as const;

/** A stretch of a round: the three servers' requests of one kind. */
interface Stretch {
  name: (typeof STRETCH_NAMES)[number];
  floor: Loaded;
  api: Loaded;
}

/** Each stretch's ratios, one per round: bare over the floor, bare over the API, the floor over the API. */
type Ratios = Map<string, { floor: number[]; api: number[]; apiOfFloor: number[] }>;

async function main(): Promise<void> {
  const rounds = Number(option('rounds', '6'));
  const seconds = Number(option('seconds', '6'));
  // `--only job` (or read, replay): one stretch, as a profile of one route's cost (`BENCH_CPU_PROF_DIR`) wants;
  // checked before any server starts.
  const only = option('only', '');
  if (only && !(STRETCH_NAMES as readonly string[]).includes(only)) throw new Error(`--only names one of ${STRETCH_NAMES.join(', ')}`);
  process.stdout.write(`every server on ${thisNode()}\n`);
  await inLogDir('floor', async () => {
    const { bare, stretches: all } = await startServers();
    const stretches = only ? all.filter((stretch) => stretch.name === only) : all;
    const ratios = await measureRounds(bare, stretches, rounds, seconds);
    printSummary(stretches, ratios, rounds);
  });
}

/** A private Redis, then the bare server, the floor server and the API on it; the stretches they are loaded in. */
async function startServers(): Promise<{ bare: Loaded; stretches: Stretch[] }> {
  const redis = await track(startRedis());
  const bareServer = await startBareServer();
  const floorServer = await startFloorServer(oneNodeEnv(redis.url));
  const api = await startApi('api', oneNodeEnv(redis.url, 'floor-api:'));
  const { scenarios } = await connectorScenarios(api.base, api.proc.child.pid);
  const floor = (label: string, route: string, options: Loaded['options']): Loaded => ({
    label,
    pid: floorServer.proc.child.pid!,
    url: `${floorServer.base}${route}`,
    options,
  });
  const onApi = (label: string, id: string): Loaded => {
    const scenario = scenarios.find((s) => s.id === id)!;
    return { label, pid: api.proc.child.pid!, url: scenario.url, options: scenario.options };
  };
  return {
    bare: { label: 'bare', pid: bareServer.proc.child.pid!, url: bareServer.url, options: {} },
    stretches: [
      { name: 'read', floor: floor('floor GET /read', '/read', {}), api: onApi('(b) GET /v1/me', 'b') },
      { name: 'job', floor: floor('floor POST /job', '/job', JOB_BODY), api: onApi('(d) fresh POST /v1/jobs', 'd') },
      { name: 'replay', floor: floor('floor POST /replay', '/replay', JOB_BODY), api: onApi('(e) replayed POST /v1/jobs', 'e') },
    ],
  };
}

/** Every round loads each stretch's three servers at once, and prints the round. */
async function measureRounds(bare: Loaded, stretches: Stretch[], rounds: number, seconds: number): Promise<Ratios> {
  const ratios: Ratios = new Map(stretches.map((stretch) => [stretch.name, { floor: [], api: [], apiOfFloor: [] }]));
  for (let pass = 1; pass <= rounds; pass += 1) {
    for (const stretch of stretches) {
      const [bareUs, floorUs, apiUs] = await measureTogether([bare, stretch.floor, stretch.api], seconds);
      const of = ratios.get(stretch.name)!;
      of.floor.push(bareUs / floorUs);
      of.api.push(bareUs / apiUs);
      of.apiOfFloor.push(floorUs / apiUs);
      process.stdout.write(
        `round ${pass} (${stretch.name}): bare ${round(bareUs, 1)} µs, ${stretch.floor.label} ${round(floorUs, 1)} µs, ` +
          `${stretch.api.label} ${round(apiUs, 1)} µs\n`,
      );
    }
  }
  return ratios;
}

function printSummary(stretches: Stretch[], ratios: Ratios, rounds: number): void {
  process.stdout.write(`\nCPU per request on ${thisNode()}: bare over each, median of ${rounds} rounds\n`);
  for (const stretch of stretches) {
    const of = ratios.get(stretch.name)!;
    process.stdout.write(
      `${stretch.floor.label}: ${round(median(of.floor))} of bare; ${stretch.api.label}: ${round(median(of.api))} of bare, ` +
        `${round(median(of.apiOfFloor))} of the floor\n`,
    );
  }
}

runComparison('floor', main);
