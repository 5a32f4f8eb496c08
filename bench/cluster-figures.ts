import { round } from './bench-processes';
import type { NodeWork } from './bench-redis';

/** One Redis node's part of a measured stretch, per request (submissions) or per job (drain). */
export interface NodeShare {
  port: number;
  role: 'primary' | 'replica';
  /** A cluster primary's hash slots, e.g. `0-5460`. */
  slots?: string;
  /** The job-queue shards whose hash slot this primary serves. */
  queueShards?: number[];
  commandsPerUnit: number;
  cpuUsPerUnit: number;
  /** Of all primaries' commands and CPU (primaries only). */
  commandShare: number | null;
  cpuShare: number | null;
  /** The node's CPU over the stretch's wall time: how busy it was. */
  busy: number;
  /** Commands it served a second during the stretch. */
  commandsPerSecond: number;
  /** Keys it gained during the stretch. */
  keys: number;
  /** Commands over CPU seconds: the commands a second it would serve were it CPU-bound at this cost. */
  commandsPerCpuSecond: number | null;
}

/** Fresh paid jobs (scenario (d), subjects in turn) on one topology, over every round. */
export interface TopologySubmit {
  requests: number;
  /** Each round: throughput, its ratio to (a) beside it and to one node in the same round, and API CPU. */
  rounds: Array<{ requestsPerSecond: number; ofBaseline: number; ofOneNode: number; apiCpuUsPerRequest: number | null; p99Ms: number }>;
  requestsPerSecond: number;
  /** Means of the rounds' ratios. */
  ofBaseline: number;
  ofOneNode: number;
  apiCpuUsPerRequest: number | null;
  /** The API's read and write system calls per request: each socket write is one (to the client or to a node). */
  apiSyscallsPerRequest: { reads: number; writes: number } | null;
  /** One node's API CPU per request over this one's. */
  ofOneNodeByCpu: number | null;
  /** Summed over the primaries. */
  redisCommandsPerRequest: number;
  redisCpuUsPerRequest: number;
  /** Summed over the replicas (applying the replication stream); null without replicas. */
  replicaCpuUsPerRequest: number | null;
  nodes: NodeShare[];
}

/** The connector's worker draining placeholder jobs on one topology (scenario (g) without the bare baseline). */
export interface TopologyDrain {
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  ofOneNode: number;
  workerCpuUsPerJob: number | null;
  redisCpuUsPerJob: number;
  redisCommandsPerJob: number;
  replicaCpuUsPerJob: number | null;
  nodes: NodeShare[];
}

/** One topology of the cluster runs. */
export interface TopologyRun {
  id: 'one-node' | 'cluster-1' | 'cluster-3';
  title: string;
  primaries: number;
  replicas: number;
  shards: number;
  /** Where each job-queue shard lives: its queue name, hash slot and primary. */
  queues: Array<{ shard: number; name: string; slot: number | null; port: number }>;
  submit: TopologySubmit;
  drain: TopologyDrain;
}

/**
 * The per-primary ceiling and what N primaries give by the arithmetic of docs/redis.md ("Sizing shards"):
 * a primary is one Redis process, single-threaded, so at a cost of `u` µs of its CPU per paid job it tops
 * out at 1,000,000 / u jobs a second.
 */
export interface ClusterCeiling {
  /** A paid job's Redis CPU on the cluster with three shards, summed over the primaries. */
  redisCpuUsPerJob: { submit: number; run: number; total: number };
  /** C: paid jobs (submitted and run) a second one primary sustains when it carries all of their Redis work. */
  jobsPerSecondPerPrimary: number;
  /** The same figure for one plain node (one-script admission, no replica to feed). */
  oneNodeJobsPerSecond: number;
  /** Commands a primary serves per CPU second (lowest and highest primary of the three-shard submissions). */
  commandsPerCpuSecond: { min: number; max: number };
  /**
   * The busiest any cluster primary got in the run (the queue's primary in the one-shard drain, normally):
   * commands it served a second, the share of a core that took, and so its commands per CPU second there.
   * Redis spends less per command the busier it is (more commands per wake-up), so C, taken from the
   * submissions' lighter load, is a floor.
   */
  peak: {
    run: TopologyRun['id'];
    stretch: 'submit' | 'drain';
    port: number;
    commandsPerSecond: number;
    busy: number;
    commandsPerCpuSecond: number | null;
  };
  /**
   * q: the queue's share of a paid job's Redis CPU, from the one-shard run: the queue's primary carries the
   * whole drain and the submissions' queue work on top of the subject work every primary carries.
   */
  queueShare: number;
  /** The busiest primary's share of a paid job's Redis CPU, measured, and as the arithmetic predicts it. */
  busiest: Array<{ run: TopologyRun['id']; port: number; measured: number; predicted: number }>;
  /** C / ((1 - q) / P + q × k / N) for P primaries: one shard, and N = P shards evenly placed (k = 1). */
  arithmetic: Array<{ primaries: number; oneShard: number; evenShards: number }>;
  /** One subject's jobs live on one primary: C / (1 - q) at most, however many primaries there are. */
  oneSubjectJobsPerSecond: number;
}

/** What the cluster runs measured; `available: false` with the reason when they did not run. */
export interface ClusterResults {
  available: boolean;
  reason?: string;
  settings?: { seconds: number; rounds: number; subjects: number; connections: number; drainJobs: number };
  runs?: TopologyRun[];
  ceiling?: ClusterCeiling;
}

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);
const mean = (values: readonly number[]): number => sum(values) / values.length;

/** Adds up the node work of several stretches (the rounds), node by node. */
export function addWork(stretches: ReadonlyArray<readonly NodeWork[]>): NodeWork[] {
  return stretches[0].map((node, i) => ({
    ...node,
    commands: sum(stretches.map((work) => work[i].commands)),
    cpuMs: sum(stretches.map((work) => work[i].cpuMs)),
    keys: sum(stretches.map((work) => work[i].keys)),
    seconds: sum(stretches.map((work) => work[i].seconds)),
  }));
}

/** Each node's share of `work` done for `units` requests or jobs. */
export function shares(
  work: readonly NodeWork[],
  units: number,
  placement: ReadonlyMap<number, { slots?: string; queueShards: number[] }>,
): NodeShare[] {
  const primaries = work.filter((node) => node.role === 'primary');
  const commands = sum(primaries.map((node) => node.commands));
  const cpu = sum(primaries.map((node) => node.cpuMs));
  return work.map((node) => ({
    port: node.port,
    role: node.role,
    ...(placement.get(node.port) ?? {}),
    commandsPerUnit: round(node.commands / units, 2),
    cpuUsPerUnit: round((node.cpuMs * 1000) / units, 1),
    commandShare: node.role === 'primary' && commands > 0 ? round(node.commands / commands, 3) : null,
    cpuShare: node.role === 'primary' && cpu > 0 ? round(node.cpuMs / cpu, 3) : null,
    busy: node.seconds > 0 ? round(node.cpuMs / 1000 / node.seconds, 3) : 0,
    commandsPerSecond: node.seconds > 0 ? round(node.commands / node.seconds, -2) : 0,
    keys: node.keys,
    commandsPerCpuSecond: node.cpuMs > 0 ? round(node.commands / (node.cpuMs / 1000), -2) : null,
  }));
}

/** The primaries' and the replicas' sums per unit. */
export function perUnit(work: readonly NodeWork[], units: number): { commands: number; cpuUs: number; replicaCpuUs: number | null } {
  const primaries = work.filter((node) => node.role === 'primary');
  const replicas = work.filter((node) => node.role === 'replica');
  return {
    commands: round(sum(primaries.map((node) => node.commands)) / units, 2),
    cpuUs: round((sum(primaries.map((node) => node.cpuMs)) * 1000) / units, 1),
    replicaCpuUs: replicas.length > 0 ? round((sum(replicas.map((node) => node.cpuMs)) * 1000) / units, 1) : null,
  };
}

/** The round means of the submissions' ratios. */
export function roundMeans(rounds: TopologySubmit['rounds']): { requestsPerSecond: number; ofBaseline: number; ofOneNode: number } {
  return {
    requestsPerSecond: round(mean(rounds.map((r) => r.requestsPerSecond)), 0),
    ofBaseline: round(mean(rounds.map((r) => r.ofBaseline)), 2),
    ofOneNode: round(mean(rounds.map((r) => r.ofOneNode)), 2),
  };
}

/** A paid job's Redis CPU on each primary: its submission's plus its run's. */
function perPrimaryJobCpu(run: TopologyRun): Array<{ port: number; cpuUs: number }> {
  const primaries = run.submit.nodes.filter((node) => node.role === 'primary');
  return primaries.map((node) => ({
    port: node.port,
    cpuUs: node.cpuUsPerUnit + (run.drain.nodes.find((other) => other.port === node.port)?.cpuUsPerUnit ?? 0),
  }));
}

/** The ceiling and the arithmetic, from the one-node run and the two cluster runs. */
export function clusterCeiling(runs: readonly TopologyRun[]): ClusterCeiling | undefined {
  const one = runs.find((run) => run.id === 'one-node');
  const single = runs.find((run) => run.id === 'cluster-1');
  const spread = runs.find((run) => run.id === 'cluster-3');
  if (!one || !single || !spread) return undefined;
  const total = (run: TopologyRun) => run.submit.redisCpuUsPerRequest + run.drain.redisCpuUsPerJob;
  const C = 1e6 / total(spread);

  // The one-shard run: every primary carries subject work (the subjects were chosen evenly over them), the
  // queue's primary the queue work besides. Its excess over the others' mean is the submissions' queue work.
  const queuePort = single.queues[0].port;
  const submitCpu = single.submit.nodes.filter((node) => node.role === 'primary');
  const others = submitCpu.filter((node) => node.port !== queuePort).map((node) => node.cpuUsPerUnit);
  const queueSubmit = Math.max(0, (submitCpu.find((node) => node.port === queuePort)?.cpuUsPerUnit ?? 0) - mean(others));
  const q = Math.min(1, (queueSubmit + single.drain.redisCpuUsPerJob) / total(single));

  const P = spread.primaries;
  const busiest = [single, spread].map((run) => {
    const cpu = perPrimaryJobCpu(run);
    const top = cpu.reduce((best, node) => (node.cpuUs > best.cpuUs ? node : best));
    const k = Math.max(...cpu.map((node) => run.queues.filter((queue) => queue.port === node.port).length));
    return {
      run: run.id,
      port: top.port,
      measured: round(top.cpuUs / sum(cpu.map((node) => node.cpuUs)), 3),
      predicted: round((1 - q) / P + (q * k) / run.shards, 3),
    };
  });
  const stretches = [single, spread].flatMap((run) =>
    (['submit', 'drain'] as const).flatMap((stretch) =>
      run[stretch].nodes.filter((node) => node.role === 'primary').map((node) => ({ run: run.id, stretch, node })),
    ),
  );
  const top = stretches.reduce((best, entry) => (entry.node.busy > best.node.busy ? entry : best));
  const commandRates = spread.submit.nodes.filter((node) => node.role === 'primary').map((node) => node.commandsPerCpuSecond ?? 0);
  return {
    redisCpuUsPerJob: { submit: spread.submit.redisCpuUsPerRequest, run: spread.drain.redisCpuUsPerJob, total: round(total(spread), 1) },
    jobsPerSecondPerPrimary: round(C, -1),
    oneNodeJobsPerSecond: round(1e6 / total(one), -1),
    commandsPerCpuSecond: { min: Math.min(...commandRates), max: Math.max(...commandRates) },
    peak: {
      run: top.run,
      stretch: top.stretch,
      port: top.node.port,
      commandsPerSecond: top.node.commandsPerSecond,
      busy: top.node.busy,
      commandsPerCpuSecond: top.node.commandsPerCpuSecond,
    },
    queueShare: round(q, 3),
    busiest,
    arithmetic: [1, 3, 6, 12].map((primaries) => ({
      primaries,
      oneShard: round(C / ((1 - q) / primaries + q), -1),
      evenShards: round(primaries * C, -1),
    })),
    oneSubjectJobsPerSecond: q < 1 ? round(C / (1 - q), -1) : Infinity,
  };
}
