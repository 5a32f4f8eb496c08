import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { soakBounds } from '../soak-report';
import { runBuilt } from './support/run-built';

// CI's soak: the 60-second version of `npm run bench:soak` (the 10-minute run's series and plot are committed
// under bench/). It fails when either process's resident memory grows faster than the short run's bound
// (bench/soak-report.ts says why 60 MB/min), when a request fails or a job is lost, or when the series is
// missing or malformed.
describe('the 60-second soak (bench/dist/bench/soak.js --seconds 60) on Redis', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'soak-test-'))));
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('keeps both processes within the memory bound, answers everything, and writes the series and the plot', async () => {
    const out = path.join(dir, 'results.json');
    const svg = path.join(dir, 'soak.svg');
    const { code, output } = await runBuilt('soak.js', ['--seconds', '60', '--rate', '150', '--out', out, '--svg', svg], dir);
    console.log(
      output
        .split('\n')
        .filter((line) => /resident|p99|requests:/.test(line) && !/^\s+\d+ s:/.test(line))
        .map((line) => `      ${line.trim()}`)
        .join('\n'),
    );
    expect(code, output).to.equal(0);

    const { soak } = JSON.parse(readFileSync(out, 'utf8'));
    expect(soak.settings).to.include({ seconds: 60, sampleSeconds: 5, windowSeconds: 10, warmupSeconds: 20, ratePerSecond: 150 });
    expect(soak.bounds).to.deep.equal(soakBounds(60));
    // A sample every 5 s from 0 to 60, each process's memory read from its own /metrics.
    expect(soak.samples.map((sample: { t: number }) => sample.t)).to.deep.equal([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]);
    for (const sample of soak.samples) {
      for (const proc of [sample.api, sample.worker]) {
        expect(proc.rssMb).to.be.within(20, 1024);
        expect(proc.heapUsedMb).to.be.within(1, proc.rssMb);
      }
    }
    expect(soak.windows.map((w: { fromS: number }) => w.fromS)).to.deep.equal([0, 10, 20, 30, 40, 50]);
    for (const window of soak.windows) expect(window.requests).to.be.above(0);
    const resident = soak.verdict.memory.filter((m: { bound: number | null }) => m.bound !== null);
    expect(resident.map((m: { series: string }) => m.series)).to.deep.equal(['API resident', 'worker resident']);
    expect(resident.map((m: { bound: number }) => m.bound)).to.deep.equal([soak.bounds.rssMbPerMin.api, soak.bounds.rssMbPerMin.worker]);
    for (const m of resident) {
      expect(m.slopeMbPerMin, m.series).to.be.at.most(m.bound);
      expect(m.met).to.equal(true);
    }
    expect(soak.traffic.errors).to.deep.equal({});
    expect(Object.keys(soak.traffic.statuses).every((status) => status.startsWith('2'))).to.equal(true);
    expect(soak.traffic.jobsAccepted).to.be.above(0);
    expect(soak.traffic.jobsSucceeded).to.equal(soak.traffic.jobsAccepted);
    expect(soak.verdict.failures).to.deep.equal([]);

    const drawn = readFileSync(svg, 'utf8');
    expect(drawn).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // Four memory lines of 13 points, two latency lines of 6.
    const lines = [...drawn.matchAll(/<polyline points="([^"]+)"/g)].map((match) => match[1].split(' ').length);
    expect(lines.filter((points) => points === 13)).to.have.length(4);
    expect(lines.filter((points) => points === 6)).to.have.length(2);
  });
});
