import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { setLogDir } from '../test/testkit/node-process';
import { thisNode } from './bench-node';
import { cpuTimeMs, residentMemory, round, startRedis } from './bench-processes';
import { comparedBuilds, median, namedTrees, option, runComparison } from './compare-cli';
import { oneNodeEnv, startApi, stopAll, track } from './connector-processes';
import type { HttpScenario } from './http-load';
import type { MemoryCgroup } from './memory-cgroup';
import { startOtlpSink } from './otlp-sink';
import { connectorScenarios } from './scenarios';

// `npm run bench:compare -- <build> <build> [...] [--scenarios b,e,f] [--rounds 6] [--seconds 6]`: the API's
// CPU per request of two or more built trees (a `dist/` each, e.g. one built from another commit), loaded at
// the same moment so that whatever else the machine runs weighs on all of them alike. One build may carry
// Node flags after `@`: `dist@--max-semi-space-size=32`; `dist@trace=0.1` traces one request in ten, exporting to a
// local OTLP sink; `dist@env:BILLING_MODE=prepaid` sets a variable for that build's API. `--memory-limit <MiB>` starts each API in a memory
// cgroup of its own with that limit, as the chart's container limit would (Linux, root); `--idle-seconds <s>`
// reads every API's resident memory again after that long without load; `--idle-between <s>` leaves the
// APIs that long without load before every round (V8's memory reducer acts on idle processes). bench/README.md
// tells how to read the result.

interface Build {
  label: string;
  /** Under `--memory-limit`: the build's cgroup, whose charge is printed beside its resident memory. */
  cgroup?: MemoryCgroup;
  scenarios: Map<string, HttpScenario>;
  pid: number;
  samples: Map<string, number[]>;
  /** Answers per status over every measured stretch, printed at the end: what the build served, e.g. 202s, not 402s. */
  answers: Map<string, number>;
}

/** One measured stretch: every build under its own autocannon, all at once; CPU µs per request each. */
async function measureTogether(builds: Build[], id: string, seconds: number): Promise<number[]> {
  const load = (build: Build, duration: number) =>
    autocannon({ url: build.scenarios.get(id)!.url, ...build.scenarios.get(id)!.options, connections: 25, duration });
  await Promise.all(builds.map((build) => load(build, 2)));
  const before = builds.map((build) => cpuTimeMs(build.pid)!);
  const results = await Promise.all(builds.map((build) => load(build, seconds)));
  return builds.map((build, i) => {
    const result = results[i];
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${build.label} (${id}): ${result.non2xx} non-2xx (${statuses(result)}), ${result.errors} errors`);
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
      build.answers.set(status, (build.answers.get(status) ?? 0) + (count ?? 0));
    return ((cpuTimeMs(build.pid)! - before[i]) * 1000) / result.requests.total;
  });
}

/** The command line's settings. */
interface Settings {
  ids: string[];
  rounds: number;
  seconds: number;
  limitMiB: string;
  idleSeconds: number;
  idleBetween: number;
}

function settingsOf(): Settings {
  return {
    ids: option('scenarios', 'b,e,f').split(','),
    rounds: Number(option('rounds', '6')),
    seconds: Number(option('seconds', '6')),
    limitMiB: option('memory-limit', ''),
    idleSeconds: Number(option('idle-seconds', '0')),
    idleBetween: Number(option('idle-between', '0')),
  };
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function main(): Promise<void> {
  const trees = namedTrees();
  if (trees.length < 2) throw new Error('name at least two built trees (dist directories) to compare');
  const settings = settingsOf();
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-compare-'));
  // Every build runs on this one Node (`on-node.ts`): the image's unless --machine-node or BENCH_NODE says otherwise.
  process.stdout.write(`every build on ${thisNode()}\n`);
  setLogDir(logDir);
  const redis = await track(startRedis());
  const { builds: specs, removeCgroups } = comparedBuilds(trees, 'compare');
  // Traced builds (`dist@trace=0.1`) export to one local sink, as they would to a collector.
  const sink = specs.some((spec) => spec.tracingRatio) ? await startOtlpSink() : undefined;
  const builds = await startBuilds(specs, redis.url, sink?.url);
  await measureRounds(builds, settings);
  printCpu(builds, settings.ids);
  printAnswers(builds);
  await printMemory(builds, settings);
  if (sink) {
    const { requests, bytes } = sink.counts();
    process.stdout.write(`\nOTLP sink: ${requests} exports, ${round(bytes / 1e6, 1)} MB\n`);
  }
  await stopAll();
  await sink?.close();
  removeCgroups();
  rmSync(logDir, { recursive: true, force: true });
}

/** One API per build, one after the other, each with its scenarios ready. */
async function startBuilds(specs: ReturnType<typeof comparedBuilds>['builds'], redisUrl: string, sinkUrl?: string): Promise<Build[]> {
  const builds: Build[] = [];
  for (const [i, spec] of specs.entries()) {
    const tracing = spec.tracingRatio && sinkUrl ? tracingEnv(sinkUrl, spec.tracingRatio) : {};
    const api = await startApi(`api-${i}`, oneNodeEnv(redisUrl), { ...spec, env: { ...tracing, ...spec.env } });
    const { scenarios, jobRead } = await connectorScenarios(api.base, api.proc.child.pid);
    builds.push({
      label: spec.label,
      cgroup: spec.cgroup,
      scenarios: new Map([...scenarios, jobRead].map((s) => [s.id, s])),
      pid: api.proc.child.pid!,
      samples: new Map(),
      answers: new Map(),
    });
  }
  return builds;
}

/** Every round measures every scenario on every build at once, and prints the round. */
async function measureRounds(builds: Build[], { ids, rounds, seconds, idleBetween }: Settings): Promise<void> {
  for (let pass = 1; pass <= rounds; pass += 1) {
    for (const id of ids) {
      if (idleBetween > 0) await pause(idleBetween);
      const figures = await measureTogether(builds, id, seconds);
      builds.forEach((build, i) => {
        build.samples.set(id, [...(build.samples.get(id) ?? []), figures[i]]);
      });
      process.stdout.write(`round ${pass} (${id}): ${figures.map((us, i) => `${builds[i].label} ${round(us, 1)} µs`).join(', ')}\n`);
    }
  }
}

function printCpu(builds: Build[], ids: string[]): void {
  process.stdout.write(
    `\nAPI CPU per request on ${thisNode()}, median of the rounds; each later build against the first, round by round\n`,
  );
  for (const id of ids) {
    const first = builds[0].samples.get(id)!;
    for (const build of builds) {
      const samples = build.samples.get(id)!;
      const lower = samples.filter((us, i) => us < first[i]).length;
      const change = median(samples.map((us, i) => (us - first[i]) / first[i]));
      const against =
        build === builds[0] ? '' : `, ${signedPercent(change)} % (median of pairs), lower in ${lower} of ${samples.length} rounds`;
      process.stdout.write(`(${id}) ${build.label}: ${round(median(samples), 1)} µs${against}\n`);
    }
  }
}

/** Each build's answers by status over the measured stretches. */
function printAnswers(builds: Build[]): void {
  process.stdout.write('\nAnswers by status, measured stretches\n');
  for (const build of builds) {
    const counts = [...build.answers].map(([status, count]) => `${status} ×${count}`);
    process.stdout.write(`${build.label}: ${counts.join(', ')}\n`);
  }
}

/** Every API's memory right after the load, and again after `idleSeconds` without load if asked. */
async function printMemory(builds: Build[], { limitMiB, idleSeconds }: Settings): Promise<void> {
  // RSS, and under --memory-limit the cgroup's charge now and its peak over the whole comparison.
  const memory = (build: Build) => {
    const rss = residentMemory(build.pid)?.rssMb ?? 'n/a';
    if (!build.cgroup) return String(rss);
    const usage = build.cgroup.usage();
    return `RSS ${rss}, cgroup ${usage.currentMiB} MiB (peak ${usage.peakMiB}; anon ${usage.anonMiB})`;
  };
  const underLoad = builds.map(memory);
  if (idleSeconds > 0) await pause(idleSeconds);
  const idle = builds.map(memory);
  process.stdout.write(
    `\nAPI ${limitMiB ? `memory MB (each under a ${limitMiB} MiB memory limit)` : 'RSS MB'}: right after the last load${idleSeconds > 0 ? `, then after ${idleSeconds} s idle` : ''}\n`,
  );
  builds.forEach((build, i) => {
    process.stdout.write(`${build.label}: ${underLoad[i]}${idleSeconds > 0 ? `, ${idle[i]}` : ''}\n`);
  });
}

runComparison('compare', main);

/** A traced build's variables: the sink as its collector, parent-based sampling at `ratio`. */
function tracingEnv(url: string, ratio: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: ratio };
}

/** A change as a signed percentage with one decimal: a change that rounds to zero prints `+0`, never `0` or `-0`. */
function signedPercent(change: number): string {
  const percent = round(change * 100, 1) || 0;
  return `${percent >= 0 ? '+' : ''}${percent}`;
}

/** The answers' statuses and their counts, `202 ×5120, 402 ×37`: what a run that failed on non-2xx answers got. */
function statuses(result: autocannon.Result): string {
  const counts = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${status} ×${count ?? 0}`);
  return counts.join(', ') || 'statuses not recorded';
}
