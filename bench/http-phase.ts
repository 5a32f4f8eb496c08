import type { RedisClient } from '../shared/adapters/redis/redis-client';
import { round } from './bench-processes';
import { SETTINGS, WARMUP_SECONDS } from './bench-settings';
import { link, startApi } from './connector-processes';
import { type HttpFigure, type HttpScenario, type LoadSettings, runLoad } from './http-load';
import type { McpProbe } from './mcp-scenario';
import type { MemoryCgroup } from './memory-cgroup';
import { type ChargeFigure, charge } from './memory-charge';
import { connectorScenarios } from './scenarios';

/** What the HTTP scenarios measured: (a) before and after every scenario, (b) to (f) and (b) on memory. */
export interface HttpPhase {
  /** Every measurement of (a), in order: one before the first scenario and one after each. */
  baselines: HttpFigure[];
  /** The mean of all of them, for the run's summary. */
  baselineRps: number;
  figures: HttpFigure[];
  mcp: McpProbe;
  /** Each scenario's cgroup charge (scenario id: after it, and its peak during it), when run under limits. */
  charges: Record<string, ChargeFigure>;
}

async function measure(scenario: HttpScenario, settings: LoadSettings, charges?: Record<string, ChargeFigure>): Promise<HttpFigure> {
  // The peak covers the warm-up too: a container's limit does not wait for the JIT.
  scenario.cgroup?.resetPeak();
  if (WARMUP_SECONDS > 0) await runLoad(scenario, { ...settings, durationSeconds: WARMUP_SECONDS });
  const figure = await runLoad(scenario, settings);
  const charged = scenario.cgroup ? charge(scenario.cgroup, scenario.pid) : undefined;
  if (charges && charged) charges[figure.id] = charged;
  const memory = charged ? `; cgroup ${charged.currentMiB} MiB after, peak ${charged.peakMiB} of ${scenario.cgroup!.limitMiB}` : '';
  process.stdout.write(`  (${figure.id}) ${figure.title} [${figure.backend}]: ${figure.requestsPerSecond} req/s${memory}\n`);
  return figure;
}

const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Runs (a) to (f) against the API on Redis and (b) against a short-lived API on memory, with (a) measured
 * before the first scenario and again after every one. Each ratio uses the two measurements of (a) on
 * either side of its scenario: on a shared machine the baseline drifts during a run (by a fifth between the
 * first and the last measurement in some runs), and a scenario is best compared with what the machine
 * gave just before and just after it.
 */
export async function runHttpPhase(options: {
  bare: HttpScenario;
  api: { base: string; pid?: number; cgroup?: MemoryCgroup };
  redis: RedisClient;
  /** The cgroup of the API on the embedded backend, under the same limit. */
  memoryApiCgroup?: MemoryCgroup;
}): Promise<HttpPhase> {
  const { bare, api, redis } = options;
  const load: LoadSettings = { durationSeconds: SETTINGS.durationSeconds, connections: SETTINGS.connections, redis };
  const found = await connectorScenarios(api.base, api.pid);
  const scenarios = found.scenarios.map((scenario) => ({ ...scenario, cgroup: api.cgroup }));
  const { mcp } = found;
  const charges: Record<string, ChargeFigure> = {};

  const baselines = [await measure(bare, load)];
  const figures: HttpFigure[] = [];
  for (const scenario of scenarios) {
    figures.push(await measure(scenario, load, charges));
    baselines.push(await measure(bare, load));
  }
  const memoryApi = await startApi('api-memory', undefined, undefined, options.memoryApiCgroup?.procsFile);
  const memoryAuth = await link(memoryApi.base);
  figures.push(
    await measure(
      {
        id: 'b-memory',
        title: 'GET /v1/me',
        backend: 'memory',
        url: `${memoryApi.base}/v1/me`,
        pid: memoryApi.proc.child.pid,
        cgroup: options.memoryApiCgroup,
        options: { headers: memoryAuth },
      },
      load,
      charges,
    ),
  );
  await memoryApi.proc.stop();
  baselines.push(await measure(bare, load));

  figures.forEach((figure, i) => {
    compareWith(figure, [baselines[i], baselines[i + 1]]);
  });
  compareWith(baselines[0], baselines);
  return { baselines, baselineRps: mean(baselines.map((figure) => figure.requestsPerSecond)), figures, mcp, charges };
}

/** Sets a figure's ratios to the mean of the given measurements of (a), by throughput and by CPU. */
function compareWith(figure: HttpFigure, baselines: HttpFigure[]): void {
  const rps = mean(baselines.map((baseline) => baseline.requestsPerSecond));
  const cpus = baselines.map((baseline) => baseline.serverCpuUsPerRequest);
  const cpu = cpus.every((value) => value !== null) ? mean(cpus as number[]) : null;
  figure.baselineRequestsPerSecond = round(rps, 0);
  figure.ofBaseline = round(figure.requestsPerSecond / rps, 2);
  figure.ofBaselineByCpu = cpu && figure.serverCpuUsPerRequest ? round(cpu / figure.serverCpuUsPerRequest, 2) : null;
}
