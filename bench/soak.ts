import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ROOT, fromInvocation, round } from './bench-processes';
import { heapGrowth, heapTotal, summariseHeapSnapshot } from './heap-snapshot';
import { mergeResults } from './results-file';
import { soakSvg } from './soak-plot';
import { formatSoak, judgeSoak, soakBounds } from './soak-report';
import { runSoak, stopSoak } from './soak-run';

// `npm run bench:soak [-- --seconds 600] [--rate 300] [--out <file>] [--svg <file>] [--heap-snapshots]`: the
// rolling restart's mixed traffic at a fixed rate against the built API and worker on a private Redis; memory
// from both processes' /metrics every 15 s, p99 per minute; slopes after the warm-up against their bound.
// Stores the series under "soak" in bench/results.json and draws bench/soak.svg; exits 1 if a bound is not met.
// --heap-snapshots writes a heap snapshot of each process after the warm-up and at the end and prints what
// grew between them (the snapshots themselves move resident memory, so that run stores nothing).
const args = process.argv.slice(2);
const option = (name: string, fallback: number | string): string =>
  args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : String(fallback);

const seconds = Number(option('seconds', 600));
const settings = {
  seconds,
  ratePerSecond: Number(option('rate', 300)),
  clients: Number(option('clients', 16)),
  jobMs: Number(option('job-ms', 100)),
  // A short run samples and windows more finely, so that it still has a series to fit.
  sampleSeconds: Number(option('sample-seconds', Math.min(15, seconds / 12))),
  windowSeconds: Number(option('window-seconds', Math.min(60, seconds / 6))),
  warmupSeconds: Number(option('warmup-seconds', seconds >= 300 ? 180 : Math.round(seconds / 3))),
};
const snapshots = args.includes('--heap-snapshots');
const out = fromInvocation(option('out', path.join(BENCH_ROOT, 'results.json')));
const svg = fromInvocation(option('svg', path.join(BENCH_ROOT, 'soak.svg')));
const WATCHDOG_MS = (seconds + 180) * 1000;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-soak-'));
  process.stdout.write(`soak: ${seconds} s at ${settings.ratePerSecond} requests/s; process logs in ${dir}\n`);
  const loadStart = os.loadavg().map((n) => round(n, 2));
  const startedAt = new Date().toISOString();
  const snapshotFlags = snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`] : [];
  const lastSample = Math.floor(seconds / settings.sampleSeconds) * settings.sampleSeconds;
  const firstAfterWarmup = Math.ceil(settings.warmupSeconds / settings.sampleSeconds) * settings.sampleSeconds;
  const measurement = await runSoak({
    dir,
    ...settings,
    workerNodeArgs: snapshotFlags,
    apiNodeArgs: snapshotFlags,
    onSample: (sample, pids) => {
      const mb = (value: number) => value.toFixed(1);
      process.stdout.write(
        `  ${sample.t} s: API ${mb(sample.api.rssMb)} MB resident, ${mb(sample.api.heapUsedMb)} heap; worker ${mb(sample.worker.rssMb)}, ${mb(sample.worker.heapUsedMb)}\n`,
      );
      if (snapshots && (sample.t === firstAfterWarmup || sample.t === lastSample))
        for (const pid of [pids.api, pids.worker]) process.kill(pid, 'SIGUSR2');
    },
  });
  const bounds = soakBounds(seconds);
  const verdict = judgeSoak(measurement, bounds, settings.warmupSeconds, seconds);
  process.stdout.write(`\n${formatSoak(measurement, verdict)}\n`);
  if (snapshots) {
    printHeapGrowth(dir);
    return;
  }
  const entry = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine: {
      cores: os.cpus().length,
      node: process.version,
      loadAverage: { start: loadStart, end: os.loadavg().map((n) => round(n, 2)) },
    },
    settings,
    bounds,
    ...measurement,
    verdict,
  };
  mergeResults(out, { soak: entry });
  writeFileSync(
    svg,
    soakSvg({
      title: `Soak: ${Math.round((seconds / 60) * 10) / 10} min at ${settings.ratePerSecond} requests/s (mixed), API + worker on Redis`,
      ...measurement,
      ...settings,
    }),
  );
  process.stdout.write(`results written to ${out} ("soak"), plot to ${svg}\n`);
  if (verdict.failures.length > 0) {
    process.stdout.write(`FAILED:\n${verdict.failures.map((line) => `  - ${line}`).join('\n')}\n`);
    process.exit(1);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** For each process, the live heap at both snapshots and the kinds of object that grew most between them. */
function printHeapGrowth(dir: string): void {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.heapsnapshot'))
    .sort();
  const byPid = new Map<string, string[]>();
  for (const file of files) {
    const pid = file.split('.')[3];
    byPid.set(pid, [...(byPid.get(pid) ?? []), path.join(dir, file)]);
  }
  for (const [pid, [before, after]] of byPid) {
    if (!after) continue;
    const [a, b] = [summariseHeapSnapshot(before), summariseHeapSnapshot(after)];
    process.stdout.write(
      `\npid ${pid}: live heap ${(heapTotal(a) / 1048576).toFixed(2)} → ${(heapTotal(b) / 1048576).toFixed(2)} MB; grew most:\n`,
    );
    for (const group of heapGrowth(a, b, 12))
      process.stdout.write(
        `  ${String(group.bytesChange).padStart(9)} bytes ${String(group.countChange).padStart(7)} objects  ${group.name}\n`,
      );
  }
  process.stdout.write(`\nsnapshots kept in ${dir}\n`);
}

setTimeout(() => {
  process.stderr.write(`the soak did not finish within ${WATCHDOG_MS / 1000} s\n`);
  void stopSoak().finally(() => process.exit(1));
}, WATCHDOG_MS).unref();
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
