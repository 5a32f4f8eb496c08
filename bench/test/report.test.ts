import { expect } from 'chai';
import type { HttpFigure } from '../http-load';
import { type BenchResults, targets } from '../report';

function figure(id: string, requestsPerSecond: number, baselineRequestsPerSecond: number): HttpFigure {
  return {
    id,
    title: id,
    backend: id === 'a' ? 'none' : 'redis',
    requestsPerSecond,
    requests: requestsPerSecond * 10,
    latencyMs: { p50: 1, p99: 2, max: 3 },
    non2xx: 0,
    errors: 0,
    redisCommandsPerRequest: null,
    serverCpuUsPerRequest: null,
    serverSyscallsPerRequest: null,
    serverRssMbAfter: null,
    baselineRequestsPerSecond,
    ofBaseline: Math.round((requestsPerSecond / baselineRequestsPerSecond) * 100) / 100,
  };
}

/** A run whose figures sit where the test puts them; everything else comfortably inside its target. */
function run(overrides: { b?: number; d?: number; e?: number; f?: number; drain?: number }): Omit<BenchResults, 'targets'> {
  const base = 10_000;
  const b = overrides.b ?? 7000;
  const drain = { jobs: 100, seconds: 1, workerCpuUsPerJob: null, redisCpuUsPerJob: null, redisCommandsPerJob: 25 };
  return {
    schema: 1,
    mode: 'full',
    startedAt: '',
    finishedAt: '',
    machine: { cores: 2, cpuModel: 'x', platform: 'linux', node: 'v20', redis: '7', loadAverage: { start: [0], end: [0] } },
    settings: {
      durationSeconds: 10,
      connections: 50,
      workerConcurrency: 4,
      drainJobs: 100,
      drainPairs: 1,
      latencyRatePerSecond: 200,
      latencySeconds: 10,
    },
    baseline: { first: base, last: base, requestsPerSecond: base, runs: [base, base] },
    http: [
      figure('a', base, base),
      figure('b', b, base),
      figure('d', overrides.d ?? 4000, base),
      figure('e', overrides.e ?? 5000, base),
      figure('f', overrides.f ?? 6000, base),
    ],
    mcp: { available: true },
    drain: {
      connector: { ...drain, jobsPerSecond: overrides.drain ?? 1000 },
      bare: { ...drain, jobsPerSecond: 1000 },
      ofBare: 1,
      pairs: [1],
    },
    latency: {
      ratePerSecond: 200,
      seconds: 10,
      jobs: 2000,
      submitToSucceededMs: { p50: 2, p99: 10, max: 20 },
      submitMs: { p50: 1, p99: 5, max: 9 },
    },
    memory: { api: { rssMb: 120, peakRssMb: 200 }, worker: { rssMb: 95, peakRssMb: 96 } },
    cluster: { available: false, reason: 'not part of this test' },
  } as Omit<BenchResults, 'targets'>;
}

const named = (results: Omit<BenchResults, 'targets'>, prefix: string) => targets(results).find((t) => t.name.startsWith(prefix))!;

describe('bench targets (bench/report.ts)', () => {
  it('a ratio just under its target misses it although it prints rounded up to the target', () => {
    const e = named(run({ e: 3996 }), '(e)');
    expect(e).to.include({ value: 0.4, target: 0.4, met: false });
    const b = named(run({ b: 5996 }), '(b)');
    expect(b).to.include({ value: 0.6, met: false });
    const f = named(run({ b: 7000, f: 4548 }), '(f)');
    expect(f).to.include({ value: 0.65, met: false });
    expect(named(run({ drain: 799.6 }), '(g)')).to.include({ value: 0.8, met: false });
  });

  it('a ratio exactly at or above its target meets it', () => {
    expect(named(run({ e: 4000 }), '(e)')).to.include({ value: 0.4, met: true });
    expect(named(run({ d: 3000 }), '(d)')).to.include({ value: 0.3, met: true });
    expect(named(run({ b: 6004 }), '(b)')).to.include({ value: 0.6, met: true });
  });

  it('each ratio is taken against the baseline beside its scenario, not the run-wide mean', () => {
    const results = run({});
    results.http[3] = figure('e', 4100, 10_500);
    expect(named(results, '(e)')).to.include({ value: 0.39, met: false });
  });

  it('under memory cgroups judges each peak against 2/3 of its limit and the API after load against 160 MiB, not RSS', () => {
    const charges = (limitMiB: number, peakMiB: number, afterLoadMiB: number) => ({ limitMiB, stretches: {}, peakMiB, afterLoadMiB });
    const results = {
      ...run({}),
      memoryCharge: {
        cgroupVersion: 1 as const,
        api: charges(320, 213.4, 160),
        worker: charges(192, 128, 90),
        apiMemoryBackend: null,
        bareWorker: null,
      },
    };
    expect(targets(results).some((t) => t.name.includes('RSS'))).to.equal(false);
    expect(named(results, '(i) API cgroup peak')).to.include({ target: 213.3, met: false });
    expect(named(results, '(i) worker cgroup peak')).to.include({ target: 128, met: true });
    expect(named(results, '(i) API cgroup charge after load')).to.include({ value: 160, met: true });
  });
});
