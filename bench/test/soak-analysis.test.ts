import { expect } from 'chai';
import { soakSvg } from '../soak-plot';
import { judgeSoak, soakBounds } from '../soak-report';
import { latencyWindows, type SoakMeasurement, type SoakSample } from '../soak-run';
import { leastSquares } from '../trend';

const flat = { slope: 0, intercept: 100, slopeStdErr: 0.1, points: 10 };

function measurement(apiSlope: number, p99s: number[], workerSlope = 0): SoakMeasurement {
  const samples: SoakSample[] = Array.from({ length: 41 }, (_, i) => ({
    t: i * 15,
    api: { rssMb: 150 + (apiSlope * i * 15) / 60, heapUsedMb: 60 },
    worker: { rssMb: 90 + (workerSlope * i * 15) / 60, heapUsedMb: 20 },
  }));
  const windows = p99s.map((p99Ms, i) => ({ fromS: i * 60, toS: (i + 1) * 60, requests: 100, p50Ms: 1, p99Ms }));
  const after = samples.filter((s) => s.t >= 180);
  return {
    samples,
    windows,
    trends: {
      apiRss: leastSquares(after.map((s) => ({ x: s.t / 60, y: s.api.rssMb }))),
      apiHeap: flat,
      workerRss: leastSquares(after.map((s) => ({ x: s.t / 60, y: s.worker.rssMb }))),
      workerHeap: flat,
      p99: leastSquares(windows.filter((w) => w.fromS >= 180).map((w) => ({ x: w.fromS / 60, y: w.p99Ms }))),
    },
    traffic: { sent: 1000, statuses: { 200: 950, 202: 50 }, errors: {}, wrongAnswers: 0, jobsAccepted: 50, jobsSucceeded: 50 },
  };
}

describe('least squares (bench/trend.ts)', () => {
  it('recovers the slope and intercept of points on a line exactly, with no error', () => {
    const trend = leastSquares([0, 1, 2, 3, 4].map((x) => ({ x, y: 3 + 0.5 * x })));
    expect(trend.slope).to.be.closeTo(0.5, 1e-12);
    expect(trend.intercept).to.be.closeTo(3, 1e-12);
    expect(trend.slopeStdErr).to.be.closeTo(0, 1e-12);
  });

  it('gives a level sawtooth a slope near zero and a standard error that reflects its swing', () => {
    const trend = leastSquares(Array.from({ length: 40 }, (_, x) => ({ x, y: x % 2 === 0 ? 100 : 140 })));
    expect(Math.abs(trend.slope)).to.be.below(0.1);
    expect(trend.slopeStdErr).to.be.above(0.1);
  });

  it('has no slope with fewer than two points and no standard error with two', () => {
    expect(leastSquares([{ x: 1, y: 1 }]).slope).to.be.NaN;
    expect(
      leastSquares([
        { x: 1, y: 1 },
        { x: 2, y: 3 },
      ]).slopeStdErr,
    ).to.be.NaN;
  });
});

describe('the soak verdict (bench/soak-report.ts)', () => {
  it('passes a run whose memory is level and whose p99 is flat', () => {
    const verdict = judgeSoak(measurement(0, [10, 9, 8, 8, 9, 8, 9, 8, 9, 8]), soakBounds(600), 180, 600);
    expect(verdict.failures).to.deep.equal([]);
    expect(verdict.memory.filter((m) => m.bound !== null).every((m) => m.met)).to.equal(true);
    expect(verdict.p99.flat).to.equal(true);
  });

  it('fails a 10-minute run whose API grows 4.5 MB/min, naming the series and the bound', () => {
    const verdict = judgeSoak(measurement(4.5, [8, 8, 8, 8, 8, 8, 8, 8, 8, 8]), soakBounds(600), 180, 600);
    expect(verdict.failures).to.deep.equal(['API resident grew 4.5 MB/min after the warm-up (bound 4)']);
  });

  it('fails a 10-minute run whose worker grows 1.5 MB/min, the rate the issue reported', () => {
    const verdict = judgeSoak(measurement(0, [8, 8, 8, 8, 8, 8, 8, 8, 8, 8], 1.5), soakBounds(600), 180, 600);
    expect(verdict.failures).to.deep.equal(['worker resident grew 1.5 MB/min after the warm-up (bound 1)']);
  });

  it('fails a p99 that doubles after the warm-up, and does not judge p99 in a short run', () => {
    const rising = [8, 8, 8, 8, 10, 12, 14, 16, 18, 20];
    expect(judgeSoak(measurement(0, rising), soakBounds(600), 180, 600).p99.flat).to.equal(false);
    const short = judgeSoak(measurement(0, rising), soakBounds(60), 180, 600);
    expect(short.p99.flat).to.equal(null);
    expect(short.failures).to.deep.equal([]);
  });

  it('fails a run with a lost job or a 5xx', () => {
    const lost = measurement(0, [8, 8, 8, 8, 8, 8, 8, 8, 8, 8]);
    lost.traffic.jobsSucceeded = 49;
    lost.traffic.statuses = { ...lost.traffic.statuses, 503: 1 };
    expect(judgeSoak(lost, soakBounds(600), 180, 600).failures).to.have.length(2);
  });
});

describe('latency windows and the plot (bench/soak-run.ts, bench/soak-plot.ts)', () => {
  it('takes each answer into the window it ended in and computes the nearest-rank p99 per window', () => {
    const at = [...Array.from({ length: 100 }, (_, i) => i * 10), ...Array.from({ length: 100 }, (_, i) => 1000 + i * 10)];
    const ms = [...Array.from({ length: 100 }, (_, i) => i + 1), ...Array.from({ length: 100 }, () => 5)];
    const windows = latencyWindows({ latency: { at, ms } }, 2, 1);
    expect(windows).to.deep.equal([
      { fromS: 0, toS: 1, requests: 100, p50Ms: 50, p99Ms: 99 },
      { fromS: 1, toS: 2, requests: 100, p50Ms: 5, p99Ms: 5 },
    ]);
  });

  it('draws one line per memory series with a point per sample, and p50 and p99 with a point per window', () => {
    const m = measurement(0, [8, 9, 10]);
    const svg = soakSvg({
      title: 'a <soak> & more',
      samples: m.samples,
      windows: m.windows,
      warmupSeconds: 180,
      seconds: 600,
      trends: m.trends,
    });
    const lines = [...svg.matchAll(/<polyline points="([^"]+)"/g)].map((match) => match[1].split(' ').length);
    expect(lines.filter((n) => n === 41)).to.have.length(4);
    expect(lines.filter((n) => n === 3)).to.have.length(2);
    expect(svg).to.contain('a &lt;soak&gt; &amp; more');
    expect(svg.match(/<circle /g)).to.have.length(3);
  });
});
