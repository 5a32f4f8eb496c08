import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { chartDir, repoRoot } from '../support/helm';

// The chart's memory requests and limits are derived from the committed measurements (docs/deploying.md,
// "Sizing"): a request covers the most a process held in the soak's steady traffic, a limit is such that the
// highest peak of its memory cgroup in the full bench (run under the chart's limits) is at most two thirds of
// it. Run `npm run bench` or `npm run bench:soak` again and this test tells whether the chart still covers
// what the process was measured to need.

/** A limit is at least this many times the cgroup's measured peak: the peak stays within 2/3 of it. */
const LIMIT_HEADROOM = 1.5;

interface Sample {
  t: number;
  api: { rssMb: number };
  worker: { rssMb: number };
}
const results = JSON.parse(readFileSync(path.join(repoRoot, 'bench', 'results.json'), 'utf8')) as {
  mode: string;
  memoryCharge: { api: { peakMiB: number }; worker: { peakMiB: number } };
  soak: { settings: { warmupSeconds: number; seconds: number }; samples: Sample[] };
};
const values = YAML.parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8'));

/** A Kubernetes memory quantity in MiB (the figures in results.json are MiB: /proc's kB / 1024). */
function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`memory quantity ${quantity} is not in Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

describe('chart sizing follows bench/results.json', function () {
  it('is read from a full bench run and a 10-minute soak, not a smoke run', function () {
    expect(results.mode).to.equal('full');
    expect(results.soak.settings.seconds).to.be.at.least(600);
  });

  for (const component of ['api', 'worker'] as const) {
    const steady = () =>
      Math.max(...results.soak.samples.filter((s) => s.t >= results.soak.settings.warmupSeconds).map((s) => s[component].rssMb));
    const peak = () => results.memoryCharge[component].peakMiB;

    it(`${component}: the memory request covers the highest resident memory after the soak's warm-up`, function () {
      expect(mebibytes(values[component].resources.requests.memory)).to.be.at.least(steady());
    });

    it(`${component}: the memory limit is at least ${LIMIT_HEADROOM} times its cgroup's highest peak in the full bench`, function () {
      expect(mebibytes(values[component].resources.limits.memory)).to.be.at.least(LIMIT_HEADROOM * peak());
    });

    it(`${component}: the memory limit is above the request, so a pod can burst past its steady size`, function () {
      expect(mebibytes(values[component].resources.limits.memory)).to.be.greaterThan(
        mebibytes(values[component].resources.requests.memory),
      );
    });
  }
});
