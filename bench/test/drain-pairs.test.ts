import { expect } from 'chai';
import { medianPair } from '../drain-pairs';
import type { DrainFigure } from '../job-load';

function figure(jobsPerSecond: number): DrainFigure {
  return {
    jobs: 1000,
    seconds: 1000 / jobsPerSecond,
    jobsPerSecond,
    workerCpuUsPerJob: null,
    redisCpuUsPerJob: null,
    redisCommandsPerJob: 25,
  };
}

function pair(connector: number, bare: number) {
  return { connector: figure(connector), bare: figure(bare), ratio: connector / bare };
}

describe('bench (g): the median of paired drains', () => {
  it('keeps the figures of the pair with the median ratio, not the median of each side, when pairs disagree', () => {
    // Each side's own median (connector 900, bare 1000) would give 0.9; the median pair is 700 against 1000.
    const result = medianPair([pair(900, 1000), pair(500, 1000), pair(700, 1000), pair(1000, 900), pair(600, 1000)]);
    expect(result.connector.jobsPerSecond).to.equal(700);
    expect(result.bare.jobsPerSecond).to.equal(1000);
    expect(result.ofBare).to.equal(0.7);
  });

  it('lists every pair ratio in the order the pairs ran', () => {
    const result = medianPair([pair(900, 1000), pair(500, 1000), pair(1000, 800)]);
    expect(result.pairs).to.deep.equal([0.9, 0.5, 1.25]);
  });

  it('takes the upper middle pair when the count of pairs is even', () => {
    expect(medianPair([pair(1, 1), pair(2, 1), pair(3, 1), pair(4, 1)]).ofBare).to.equal(3);
  });

  it('refuses an empty list rather than inventing a ratio', () => {
    expect(() => medianPair([])).to.throw(/no drain pairs/);
  });
});
