import { round } from './bench-processes';
import type { SoakMeasurement } from './soak-run';

/** What a soak must stay within; `soakBounds` says why each number is what it is. */
export interface SoakBounds {
  /** The largest least-squares slope of each process's resident memory after the warm-up, MB per minute. */
  rssMbPerMin: { api: number; worker: number };
  /**
   * p99 is flat when its fitted line rises over the measured span by at most `riseFraction` of the median
   * window p99, or by at most `floorMs` (a few ms are noise at a p99 of a few ms). Null: not judged.
   */
  p99: { riseFraction: number; floorMs: number } | null;
}

/**
 * The bounds, by the soak's length.
 *
 * A run of 5 minutes or more (the default 10: 7 minutes and 29 samples after a 3-minute warm-up):
 * - the worker's resident memory within 1 MB/min: below the 1.7 MB/min the issue reported, and twenty times
 *   the standard error of its slope in such a run (0.05 MB/min: its memory moves smoothly);
 * - the API's within 4 MB/min: its resident memory follows its heap's collection cycle (128 to 198 MB and back
 *   every minute or two at 300 requests a second), which leaves the slope of 29 samples uncertain by about
 *   1.7 MB/min (one standard error); 4 MB/min is about 2.4 of them, so a level API fails it about once in a
 *   hundred runs. At 300 requests a second it still catches a leak of about 230 bytes a request;
 * - p99 flat.
 *
 * A shorter run (CI's 60 s: 40 s after a 20 s warm-up) is still inside the API's start-up growth (V8 grows its
 * heap to its working size over the first minutes: 120 to 150 MB in the first minute, up to about 30 MB/min),
 * and its slope is only known to about ±6 MB/min. Its bound, 60 MB/min for both, is set against leaks of
 * request-sized things instead: anything that keeps a request's or a response's objects (about 20 KB a request,
 * bench/README.md) grows 180 MB/min at CI's 150 requests a second, three times the bound. p99 is not judged:
 * on two shared cores a minute of p99s is the other tenants' scheduling more than ours.
 */
export function soakBounds(seconds: number): SoakBounds {
  return seconds >= 300
    ? { rssMbPerMin: { api: 4, worker: 1 }, p99: { riseFraction: 0.5, floorMs: 5 } }
    : { rssMbPerMin: { api: 60, worker: 60 }, p99: null };
}

/** One judged trend. */
export interface TrendVerdict {
  series: string;
  slopeMbPerMin: number;
  slopeStdErr: number;
  bound: number | null;
  met: boolean | null;
}

/** The soak against its bounds: every RSS trend, the heap trends (shown, not judged), p99's flatness, and what failed. */
export interface SoakVerdict {
  memory: TrendVerdict[];
  /** `boundMs` and `flat` are null when p99 is not judged (a short run). */
  p99: { medianMs: number; riseMs: number; boundMs: number | null; flat: boolean | null };
  failures: string[];
}

/** Judges a measurement: RSS slopes against the bound, p99's rise, no error, no lost job. */
export function judgeSoak(measurement: SoakMeasurement, bounds: SoakBounds, warmupSeconds: number, seconds: number): SoakVerdict {
  const { trends, traffic, windows } = measurement;
  const verdict = (series: string, trend: SoakMeasurement['trends']['apiRss'], bound: number | null): TrendVerdict => ({
    series,
    slopeMbPerMin: round(trend.slope, 3),
    slopeStdErr: round(trend.slopeStdErr, 3),
    bound,
    met: bound === null ? null : trend.slope <= bound,
  });
  const memory = [
    verdict('API resident', trends.apiRss, bounds.rssMbPerMin.api),
    verdict('worker resident', trends.workerRss, bounds.rssMbPerMin.worker),
    verdict('API heap used', trends.apiHeap, null),
    verdict('worker heap used', trends.workerHeap, null),
  ];
  const measured = windows
    .filter((w) => w.fromS >= warmupSeconds)
    .map((w) => w.p99Ms)
    .sort((a, b) => a - b);
  const medianMs = measured[Math.floor(measured.length / 2)] ?? NaN;
  const riseMs = (trends.p99.slope * (seconds - warmupSeconds)) / 60;
  const boundMs = bounds.p99 ? Math.max(bounds.p99.floorMs, bounds.p99.riseFraction * medianMs) : null;
  const p99 = {
    medianMs: round(medianMs, 2),
    riseMs: round(riseMs, 2),
    boundMs: boundMs === null ? null : round(boundMs, 2),
    flat: boundMs === null ? null : riseMs <= boundMs,
  };

  const failures: string[] = [];
  for (const m of memory)
    if (m.met === false) failures.push(`${m.series} grew ${m.slopeMbPerMin} MB/min after the warm-up (bound ${m.bound})`);
  if (p99.flat === false) failures.push(`p99 rose ${p99.riseMs} ms over the run after the warm-up (bound ${p99.boundMs} ms)`);
  if (Object.keys(traffic.errors).length > 0) failures.push(`requests without an answer: ${JSON.stringify(traffic.errors)}`);
  const other = Object.keys(traffic.statuses).filter((status) => !status.startsWith('2'));
  if (other.length > 0) failures.push(`answers outside 2xx: ${JSON.stringify(traffic.statuses)}`);
  if (traffic.wrongAnswers > 0) failures.push(`${traffic.wrongAnswers} wrong answers`);
  if (traffic.jobsSucceeded !== traffic.jobsAccepted)
    failures.push(`${traffic.jobsSucceeded} of ${traffic.jobsAccepted} accepted jobs succeeded`);
  if (measurement.samples.length < 5) failures.push(`only ${measurement.samples.length} samples`);
  return { memory, p99, failures };
}

/** The figures a person reads, a line each. */
export function formatSoak(measurement: SoakMeasurement, verdict: SoakVerdict): string {
  const first = measurement.samples[0];
  const last = measurement.samples.at(-1)!;
  const mb = (value: number) => value.toFixed(1);
  return [
    `requests: ${measurement.traffic.sent}, statuses ${JSON.stringify(measurement.traffic.statuses)}, jobs ${measurement.traffic.jobsSucceeded}/${measurement.traffic.jobsAccepted} succeeded`,
    `API resident ${mb(first.api.rssMb)} → ${mb(last.api.rssMb)} MB, heap used ${mb(first.api.heapUsedMb)} → ${mb(last.api.heapUsedMb)} MB`,
    `worker resident ${mb(first.worker.rssMb)} → ${mb(last.worker.rssMb)} MB, heap used ${mb(first.worker.heapUsedMb)} → ${mb(last.worker.heapUsedMb)} MB`,
    ...verdict.memory.map(
      (m) =>
        `  ${m.series}: ${m.slopeMbPerMin} ± ${m.slopeStdErr} MB/min${m.bound === null ? '' : ` (bound ${m.bound}: ${m.met ? 'met' : 'NOT met'})`}`,
    ),
    `p99 per window: ${measurement.windows.map((w) => w.p99Ms).join(', ')} ms; median after warm-up ${verdict.p99.medianMs} ms, fitted rise ${verdict.p99.riseMs} ms${verdict.p99.boundMs === null ? ' (not judged in a short run)' : ` (bound ${verdict.p99.boundMs}: ${verdict.p99.flat ? 'flat' : 'NOT flat'})`}`,
  ].join('\n');
}
