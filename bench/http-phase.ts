import type Redis from 'ioredis';
import { round } from './bench-processes';
import { SETTINGS, WARMUP_SECONDS } from './bench-settings';
import { link, startApi } from './connector-processes';
import { runLoad, type HttpFigure, type HttpScenario, type LoadSettings } from './http-load';
import type { McpProbe } from './mcp-scenario';
import { connectorScenarios } from './scenarios';

/** What the HTTP scenarios measured: (a) first and last, then (b) to (f) and (b) on memory, with their ratios. */
export interface HttpPhase {
  baselineFirst: HttpFigure;
  baselineLast: HttpFigure;
  baselineRps: number;
  figures: HttpFigure[];
  mcp: McpProbe;
}

async function measure(scenario: HttpScenario, settings: LoadSettings): Promise<HttpFigure> {
  if (WARMUP_SECONDS > 0) await runLoad(scenario, { ...settings, durationSeconds: WARMUP_SECONDS });
  const figure = await runLoad(scenario, settings);
  process.stdout.write(`  (${figure.id}) ${figure.title} [${figure.backend}]: ${figure.requestsPerSecond} req/s\n`);
  return figure;
}

/**
 * Runs (a) to (f) against the API on Redis and (b) against a short-lived API on memory, with (a) first and
 * last; every ratio uses the mean of the two baselines, so drift during the run shows in both.
 */
export async function runHttpPhase(options: { bare: HttpScenario; api: { base: string; pid?: number }; redis: Redis }): Promise<HttpPhase> {
  const { bare, api, redis } = options;
  const load: LoadSettings = { durationSeconds: SETTINGS.durationSeconds, connections: SETTINGS.connections, redis };
  const { scenarios, mcp } = await connectorScenarios(api.base, api.pid);

  const baselineFirst = await measure(bare, load);
  const figures: HttpFigure[] = [];
  for (const scenario of scenarios) figures.push(await measure(scenario, load));

  const memoryApi = await startApi('api-memory', undefined);
  const memoryAuth = await link(memoryApi.base);
  figures.push(await measure({ id: 'b-memory', title: 'GET /v1/me', backend: 'memory', url: `${memoryApi.base}/v1/me`, pid: memoryApi.proc.child.pid, options: { headers: memoryAuth } }, load));
  await memoryApi.proc.stop();
  const baselineLast = await measure(bare, load);

  const baselineRps = (baselineFirst.requestsPerSecond + baselineLast.requestsPerSecond) / 2;
  const cpus = [baselineFirst.serverCpuUsPerRequest, baselineLast.serverCpuUsPerRequest];
  const baselineCpu = cpus.every((cpu) => cpu !== null) ? (cpus[0]! + cpus[1]!) / 2 : null;
  for (const figure of [baselineFirst, ...figures]) {
    figure.ofBaseline = round(figure.requestsPerSecond / baselineRps, 2);
    figure.ofBaselineByCpu = baselineCpu && figure.serverCpuUsPerRequest ? round(baselineCpu / figure.serverCpuUsPerRequest, 2) : null;
  }
  return { baselineFirst, baselineLast, baselineRps, figures, mcp };
}
