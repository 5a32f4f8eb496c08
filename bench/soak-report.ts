import { round } from './bench-processes';
import type { SoakMeasurement } from './soak-run';

/** What a soak must stay within; `soakBounds` says why each number is what it is. */
export interface SoakBounds {
  /** The largest least-squares slope of either process's resident memory after the warm-up, MB per minute. */
  rssMbPerMin: number;
  /** p99 is flat when its fitted line rises over the measured span by at most this share of the median window p99… */
  p99RiseFraction: number;
  /** …or by at most this many ms (a few ms are noise at a p99 of a few ms). */
  p99RiseFloorMs: number;
}

/**
 * The bounds, by the soak's length. A 10-minute run (7 minutes after its warm-up, 29 samples) resolves a slope
 * of about ±0.3 MB/min on this machine (the API's resident memory follows its heap's collection cycle), so
 * 1 MB/min is the smallest bound it can hold without failing on noise, and it is below the 1.7 MB/min the
 * issue reported. A 60-second run (40 s after warm-up) cannot resolve that; its bound is set against a
 * leak of something request-sized instead: at 150 requests a second a leak of 3 KB a request grows 27 MB a
 * minute, and anything that keeps a request or response (about 20 KB each, bench/README.md) grows well over
 * 150. 25 MB/min catches those and stays clear of the sawtooth of a 40-second window.
 */
export function soakBounds(seconds: number): SoakBounds {
  return { rssMbPerMin: seconds >= 300 ? 1 : 25, p99RiseFraction: 0.5, p99RiseFloorMs: 5 };
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
  p99: { medianMs: number; riseMs: number; boundMs: number; flat: boolean };
  failures: string[];
}

/** Judges a measurement: RSS slopes against the bound, p99's rise, no error, no lost job. */
export function judgeSoak(measurement: SoakMeasurement, bounds: SoakBounds, warmupSeconds: number, seconds: number): SoakVerdict {
  const { trends, traffic, windows } = measurement;
  const verdict = (series: string, trend: SoakMeasurement['trends']['apiRss'], judged: boolean): TrendVerdict => ({
    series,
    slopeMbPerMin: round(trend.slope, 3),
    slopeStdErr: round(trend.slopeStdErr, 3),
    bound: judged ? bounds.rssMbPerMin : null,
    met: judged ? trend.slope <= bounds.rssMbPerMin : null,
  });
  const memory = [
    verdict('API resident', trends.apiRss, true),
    verdict('worker resident', trends.workerRss, true),
    verdict('API heap used', trends.apiHeap, false),
    verdict('worker heap used', trends.workerHeap, false),
  ];
  const measured = windows.filter((w) => w.fromS >= warmupSeconds).map((w) => w.p99Ms).sort((a, b) => a - b);
  const medianMs = measured[Math.floor(measured.length / 2)] ?? NaN;
  const riseMs = (trends.p99.slope * (seconds - warmupSeconds)) / 60;
  const boundMs = Math.max(bounds.p99RiseFloorMs, bounds.p99RiseFraction * medianMs);
  const p99 = { medianMs: round(medianMs, 2), riseMs: round(riseMs, 2), boundMs: round(boundMs, 2), flat: riseMs <= boundMs };

  const failures: string[] = [];
  for (const m of memory) if (m.met === false) failures.push(`${m.series} grew ${m.slopeMbPerMin} MB/min after the warm-up (bound ${m.bound})`);
  if (!p99.flat) failures.push(`p99 rose ${p99.riseMs} ms over the run after the warm-up (bound ${p99.boundMs} ms)`);
  if (Object.keys(traffic.errors).length > 0) failures.push(`requests without an answer: ${JSON.stringify(traffic.errors)}`);
  const other = Object.keys(traffic.statuses).filter((status) => !status.startsWith('2'));
  if (other.length > 0) failures.push(`answers outside 2xx: ${JSON.stringify(traffic.statuses)}`);
  if (traffic.wrongAnswers > 0) failures.push(`${traffic.wrongAnswers} wrong answers`);
  if (traffic.jobsSucceeded !== traffic.jobsAccepted) failures.push(`${traffic.jobsSucceeded} of ${traffic.jobsAccepted} accepted jobs succeeded`);
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
    ...verdict.memory.map((m) => `  ${m.series}: ${m.slopeMbPerMin} ± ${m.slopeStdErr} MB/min${m.bound === null ? '' : ` (bound ${m.bound}: ${m.met ? 'met' : 'NOT met'})`}`),
    `p99 per window: ${measurement.windows.map((w) => w.p99Ms).join(', ')} ms; median after warm-up ${verdict.p99.medianMs} ms, fitted rise ${verdict.p99.riseMs} ms (bound ${verdict.p99.boundMs}: ${verdict.p99.flat ? 'flat' : 'NOT flat'})`,
  ].join('\n');
}
