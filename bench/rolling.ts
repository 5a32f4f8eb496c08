import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatRollingReport, judgeRollingRestart } from '../test/testkit/rolling-report';
import { runRollingRestart, stopEverything } from '../test/testkit/rolling-restart';
import { BENCH_ROOT, fromInvocation } from './bench-processes';
import { mergeResults } from './results-file';

// `npm run bench:rolling [-- --rotations 2] [--rate 150] [--delay-ms <ms>] [--out <file>]`: two APIs behind HAProxy and two
// workers on one private Redis, steady mixed traffic, every process replaced one at a time; prints the counts,
// stores them under "rollingRestart" in bench/results.json, and exits 1 if any pass criterion failed.
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const WATCHDOG_MS = 600_000;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'connector-rolling-'));
  process.stdout.write(`rolling restart; process logs and HAProxy config in ${dir}\n`);
  const report = await runRollingRestart({
    dir,
    rotations: Number(option('rotations', '2')),
    ratePerSecond: Number(option('rate', '150')),
    ...(args.includes('--delay-ms') ? { delayMs: Number(option('delay-ms', '')) } : {}),
    progress: (line) => process.stdout.write(`  ${line}\n`),
  });
  const failures = judgeRollingRestart(report);
  const out = fromInvocation(option('out', path.join(BENCH_ROOT, 'results.json')));
  mergeResults(out, { rollingRestart: { finishedAt: new Date().toISOString(), loadAverage: os.loadavg(), ...report, failures } });
  process.stdout.write(`\n${formatRollingReport(report)}\nresults written to ${out}\n`);
  if (failures.length > 0) {
    process.stdout.write(`FAILED:\n${failures.map((line) => `  - ${line}`).join('\n')}\n`);
    process.exit(1);
  }
  // The logs are kept when something failed, for the reader; removed when everything held.
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write('every pass criterion held\n');
}

setTimeout(() => {
  process.stderr.write(`the rolling restart did not finish within ${WATCHDOG_MS / 1000} s\n`);
  void stopEverything().finally(() => process.exit(1));
}, WATCHDOG_MS).unref();
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`rolling restart failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
