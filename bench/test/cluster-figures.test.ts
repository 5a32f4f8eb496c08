import { expect } from 'chai';
import { NodeMeter, type NodeWork, parseNodeInfo } from '../bench-redis';
import { addWork, clusterCeiling, shares, type TopologyRun } from '../cluster-figures';

const INFO = [
  '# Replication',
  'role:master',
  '# CPU',
  'used_cpu_sys:1.250000',
  'used_cpu_user:2.500500',
  '# Commandstats',
  'cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
  'cmdstat_info:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
  'cmdstat_cluster|slots:calls=2,usec=20,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
  'cmdstat_hmget:calls=30,usec=30,usec_per_call=1.00,rejected_calls=0,failed_calls=0',
  '# Keyspace',
  'db0:keys=17,expires=3,avg_ttl=0',
].join('\r\n');

const work = (port: number, role: NodeWork['role'], commands: number, cpuMs: number, keys = 0): NodeWork => ({
  port,
  role,
  commands,
  cpuMs,
  keys,
  seconds: 2,
});

/** A run whose per-primary CPU per unit the test sets: submissions per request, the drain per job. */
function run(
  id: TopologyRun['id'],
  shards: number,
  queuePorts: number[],
  submitUs: Record<number, number>,
  drainUs: Record<number, number>,
): TopologyRun {
  const node = (port: number, cpuUsPerUnit: number) => ({
    port,
    role: 'primary' as const,
    commandsPerUnit: 1,
    cpuUsPerUnit,
    commandShare: null,
    cpuShare: null,
    busy: cpuUsPerUnit / 1000,
    commandsPerSecond: 1000,
    keys: 0,
    commandsPerCpuSecond: 1000,
  });
  const sum = (values: Record<number, number>) => Object.values(values).reduce((total, value) => total + value, 0);
  return {
    id,
    title: id,
    primaries: Object.keys(submitUs).length,
    replicas: 0,
    shards,
    queues: queuePorts.map((port, shard) => ({ shard, name: `jobs-${shard}`, slot: null, port })),
    submit: {
      requests: 1000,
      rounds: [],
      requestsPerSecond: 1000,
      ofBaseline: 0.3,
      ofOneNode: 1,
      apiCpuUsPerRequest: 300,
      apiSyscallsPerRequest: null,
      ofOneNodeByCpu: 1,
      redisCommandsPerRequest: 25,
      redisCpuUsPerRequest: sum(submitUs),
      replicaCpuUsPerRequest: null,
      nodes: Object.entries(submitUs).map(([port, us]) => node(Number(port), us)),
    },
    drain: {
      jobs: 1000,
      seconds: 1,
      jobsPerSecond: 1000,
      ofOneNode: 1,
      workerCpuUsPerJob: 50,
      redisCpuUsPerJob: sum(drainUs),
      redisCommandsPerJob: 25,
      replicaCpuUsPerJob: null,
      nodes: Object.entries(drainUs).map(([port, us]) => node(Number(port), us)),
    },
  };
}

describe('bench cluster figures (bench/bench-redis.ts, bench/cluster-figures.ts)', () => {
  it('a node sample counts every command but the INFO calls that take the samples, and the CPU of user and system time', () => {
    const sample = parseNodeInfo(7000, INFO);
    expect(sample).to.include({ port: 7000, role: 'primary', commands: 42, keys: 17 });
    expect(sample.cpuMs).to.be.closeTo(3750.5, 1e-6);
    expect(parseNodeInfo(7001, INFO.replace('role:master', 'role:slave')).role).to.equal('replica');
  });

  it('the work between two samples is per node, and rounds add up node by node', () => {
    const before = [{ ...parseNodeInfo(1, INFO), at: 1000 }];
    const after = [{ ...before[0], commands: before[0].commands + 500, cpuMs: before[0].cpuMs + 20, keys: 25, at: 3000 }];
    const [between] = NodeMeter.between(before, after);
    expect(between).to.deep.include({ port: 1, commands: 500, keys: 8, seconds: 2 });
    expect(between.cpuMs).to.be.closeTo(20, 1e-9);
    const [total] = addWork([[between], [between]]);
    expect(total).to.deep.include({ commands: 1000, keys: 16, seconds: 4 });
  });

  it('shares are of the primaries only; a replica gets its per-unit figures and no share', () => {
    const nodes = shares(
      [work(1, 'primary', 3000, 30), work(2, 'primary', 1000, 10), work(3, 'replica', 900, 40)],
      100,
      new Map([[1, { slots: '0-8191', queueShards: [0] }]]),
    );
    expect(nodes[0]).to.deep.include({
      slots: '0-8191',
      queueShards: [0],
      commandsPerUnit: 30,
      cpuUsPerUnit: 300,
      commandShare: 0.75,
      cpuShare: 0.75,
      busy: 0.015,
      commandsPerSecond: 1500,
      commandsPerCpuSecond: 100_000,
    });
    expect(nodes[1]).to.deep.include({ commandShare: 0.25, cpuShare: 0.25 });
    expect(nodes[2]).to.deep.include({ role: 'replica', cpuUsPerUnit: 400, commandShare: null, cpuShare: null });
  });

  it("the queue share is the queue primary's excess in the one-shard run, and the arithmetic follows C / ((1 - q) / P + q k / N)", () => {
    // One shard on :2: each primary carries 100 µs of subject work per job, :2 also 100 µs of queue work and the 300 µs drain.
    const single = run('cluster-1', 1, [2], { 1: 100, 2: 200, 3: 100 }, { 1: 0, 2: 300, 3: 0 });
    // Three shards, one per primary: everything even, 700 µs a job in all.
    const spread = run('cluster-3', 3, [1, 2, 3], { 1: 133, 2: 133, 3: 134 }, { 1: 100, 2: 100, 3: 100 });
    const one = run('one-node', 1, [9], { 9: 250 }, { 9: 250 });
    const ceiling = clusterCeiling([one, single, spread])!;
    // q = (100 + 300) / (400 + 300)
    expect(ceiling.queueShare).to.equal(0.571);
    expect(ceiling.redisCpuUsPerJob).to.deep.equal({ submit: 400, run: 300, total: 700 });
    expect(ceiling.jobsPerSecondPerPrimary).to.equal(1430);
    expect(ceiling.oneNodeJobsPerSecond).to.equal(2000);
    const q = 4 / 7;
    const C = 1e6 / 700;
    expect(ceiling.arithmetic.find((row) => row.primaries === 3)).to.deep.equal({
      primaries: 3,
      oneShard: Math.round(C / ((1 - q) / 3 + q) / 10) * 10,
      evenShards: Math.round((3 * C) / 10) * 10,
    });
    expect(ceiling.busiest[0]).to.deep.include({ run: 'cluster-1', port: 2, measured: 0.714, predicted: 0.714 });
    expect(ceiling.busiest[1]).to.deep.include({ run: 'cluster-3', predicted: 0.333 });
    expect(ceiling.oneSubjectJobsPerSecond).to.equal(Math.round(C / (1 - q) / 10) * 10);
  });

  it('no ceiling without all three runs', () => {
    expect(clusterCeiling([run('one-node', 1, [9], { 9: 250 }, { 9: 250 })])).to.equal(undefined);
  });
});
