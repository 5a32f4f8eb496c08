import { execFileSync } from 'node:child_process';
import type { Queue } from 'bullmq';
import calculateSlot from 'cluster-key-slot';
import { shardOf } from '../shared/adapters/redis/job-shards';
import { closeRedisClient, type RedisClient } from '../shared/adapters/redis/redis-client';
import { RedisKeys } from '../shared/adapters/redis/redis-keys';
import type { NodeProcess } from '../test/testkit/node-process';
import { type ClusterNodeInfo, parseClusterNodes, startRedisCluster } from '../test/testkit/redis-topologies';
import { round } from './bench-processes';
import { benchClient, NodeMeter, type NodeWork, nodeClient } from './bench-redis';
import { CLUSTER_SETTINGS, SETTINGS, WARMUP_SECONDS } from './bench-settings';
import { addWork, type ClusterResults, clusterCeiling, perUnit, roundMeans, shares, type TopologyRun } from './cluster-figures';
import { link, oneNodeEnv, type RedisEnv, startApi, startWorker, track } from './connector-processes';
import { type HttpFigure, type HttpScenario, runLoad, subjectsInTurn } from './http-load';
import { drain, openQueue } from './job-load';

/** One topology under test: its connector processes, the bench's handles on its queues, and its nodes. */
interface Topology {
  id: TopologyRun['id'];
  title: string;
  shards: number;
  keys: RedisKeys;
  client: RedisClient;
  meter: NodeMeter;
  primaries: number;
  replicas: number;
  queues: Queue[];
  api: { proc: NodeProcess; base: string };
  worker: NodeProcess;
  authorizations: string[];
  placement: Map<number, { slots?: string; queueShards: number[] }>;
  queuePlacement: TopologyRun['queues'];
  rounds: Array<{ figure: HttpFigure; baseline: number; work: NodeWork[] }>;
}

/** True when `redis-cli` (which joins the cluster's nodes) is on the PATH. */
function hasRedisCli(): boolean {
  try {
    execFileSync('redis-cli', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The cluster runs: a 6-node Redis Cluster (3 primaries, 3 replicas, started as the tests start it) with
 * `JOB_QUEUE_SHARDS` 1 and 3, and the bench's one node, each with its own API and worker. Fresh paid jobs
 * from several subjects in turn (the topologies taking turns, (a) measured after each), then a drain on
 * each; every node's commands, CPU and keys before and after. `oneNode` is the main run's redis-server,
 * whose connector processes have stopped.
 */
export async function runClusterPhase(options: {
  bare: HttpScenario;
  oneNode: { url: string; client: RedisClient };
}): Promise<ClusterResults> {
  if (!CLUSTER_SETTINGS.enabled) return { available: false, reason: 'left out (--no-cluster)' };
  if (!hasRedisCli()) return { available: false, reason: 'redis-cli is not installed (it joins the cluster)' };
  const settings = { ...CLUSTER_SETTINGS, connections: SETTINGS.connections };
  process.stdout.write(`Redis Cluster: 3 primaries, 3 replicas; ${settings.rounds} round(s) of ${settings.seconds}s per topology\n`);
  // A long node timeout: nothing is killed here, and a loaded machine must not make a node look failed.
  const cluster = await track(startRedisCluster({ nodeTimeoutMs: 15_000 }));
  const nodeClients = await Promise.all(
    cluster.ports.map(async (port) => ({ port, client: await nodeClient(`redis://127.0.0.1:${port}`, `node-${port}`) })),
  );
  const view = parseClusterNodes(String(await nodeClients[0].client.call('CLUSTER', 'NODES')));
  const clusterClient = await benchClient(
    { topology: { mode: 'cluster', nodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })) }, tls: false },
    'cluster',
  );
  await options.oneNode.client.flushall();

  const layout = clusterLayout(view, Number(new URL(options.oneNode.url).port), settings.subjects);
  const oneNodeClient = [{ port: layout.oneNodePort, client: options.oneNode.client }];
  const seeds = { REDIS_CLUSTER_NODES: cluster.seeds };
  const topologies = [
    await openTopology(layout, 'one-node', 'one node', 1, oneNodeEnv(options.oneNode.url), options.oneNode.client, oneNodeClient, false),
    await openTopology(
      layout,
      'cluster-1',
      'cluster, 3 primaries, 1 shard',
      1,
      { ...seeds, JOB_QUEUE_SHARDS: '1' },
      clusterClient,
      nodeClients,
      true,
    ),
    await openTopology(
      layout,
      'cluster-3',
      'cluster, 3 primaries, 3 shards',
      3,
      { ...seeds, JOB_QUEUE_SHARDS: '3' },
      clusterClient,
      nodeClients,
      true,
    ),
  ];

  await submitInTurns(topologies, options.bare, settings, layout.subjects.length);
  const runs = await drainEach(topologies, settings.drainJobs);
  await Promise.all([clusterClient, ...nodeClients.map((node) => node.client)].map((client) => closeRedisClient(client)));
  await cluster.stop();
  return {
    available: true,
    settings: {
      seconds: settings.seconds,
      rounds: settings.rounds,
      subjects: layout.subjects.length,
      connections: settings.connections,
      drainJobs: settings.drainJobs,
    },
    runs,
    ceiling: clusterCeiling(runs),
  };
}

type ClusterSettings = typeof CLUSTER_SETTINGS & { connections: number };
type NodeClients = Array<{ port: number; client: RedisClient }>;

/** Where things live: the cluster's primaries and their slots, the one node's port, and the subjects of the load. */
interface ClusterLayout {
  view: ClusterNodeInfo[];
  primaryCount: number;
  primaryOfSlot: (slot: number) => number;
  oneNodePort: number;
  subjects: string[];
}

function clusterLayout(view: ClusterNodeInfo[], oneNodePort: number, subjectCount: number): ClusterLayout {
  const primaryOfSlot = (slot: number) =>
    view.find((node) => node.role === 'primary' && node.slots.some(([from, to]) => slot >= from && slot <= to))!.port;
  // Subjects chosen so that their keys' slots fall evenly on the three primaries, as many subjects' would.
  const primaryCount = view.filter((node) => node.role === 'primary').length;
  const subjects = balancedSubjects(subjectCount, primaryCount, (subject) =>
    primaryOfSlot(calculateSlot(new RedisKeys('', true).subjectUsage(subject))),
  );
  return { view, primaryCount, primaryOfSlot, oneNodePort, subjects };
}

/** A topology's queues (paused), its API and worker, and its subjects linked. */
async function openTopology(
  layout: ClusterLayout,
  id: Topology['id'],
  title: string,
  shards: number,
  env: RedisEnv,
  client: RedisClient,
  nodes: NodeClients,
  clustered: boolean,
): Promise<Topology> {
  const keys = new RedisKeys(`bench-${id}:`, clustered);
  const queues = await Promise.all(
    Array.from({ length: shards }, (_, shard) => openQueue(client, keys.jobQueueName(shard), keys.bullPrefix)),
  );
  // Paused before the worker starts: it must not take the API's cores while the submissions run.
  await Promise.all(queues.map((queue) => queue.pause()));
  const api = await startApi(`api-${id}`, { ...env, REDIS_KEY_PREFIX: keys.prefix });
  const worker = await startWorker({ ...env, REDIS_KEY_PREFIX: keys.prefix }, `worker-${id}`);
  const authorizations = [];
  for (const subject of layout.subjects) authorizations.push((await link(api.base, subject)).authorization);
  const queuePlacement = queues.map((queue, shard) => {
    const slot = clustered ? calculateSlot(queue.toKey('id')) : null;
    return { shard, name: queue.name, slot, port: slot === null ? layout.oneNodePort : layout.primaryOfSlot(slot) };
  });
  const primaries = clustered ? layout.primaryCount : 1;
  return {
    id,
    title,
    shards,
    keys,
    client,
    meter: new NodeMeter(nodes),
    primaries,
    replicas: nodes.length - primaries,
    queues,
    api,
    worker,
    authorizations,
    placement: placementOf(layout, queuePlacement, clustered),
    queuePlacement,
    rounds: [],
  };
}

/** Per node that holds data: its slots (clustered) and the queue shards it serves. */
function placementOf(layout: ClusterLayout, queuePlacement: TopologyRun['queues'], clustered: boolean): Topology['placement'] {
  const shardsOn = (port: number) => queuePlacement.filter((queue) => queue.port === port).map((queue) => queue.shard);
  return new Map<number, { slots?: string; queueShards: number[] }>(
    clustered
      ? layout.view
          .filter((node) => node.role === 'primary')
          .map((node) => [
            node.port,
            { slots: node.slots.map(([from, to]) => `${from}-${to}`).join(','), queueShards: shardsOn(node.port) },
          ])
      : [[layout.oneNodePort, { queueShards: shardsOn(layout.oneNodePort) }]],
  );
}

/** Fresh paid jobs on each topology in turn, round after round, with (a) measured after each. */
async function submitInTurns(topologies: Topology[], bare: HttpScenario, settings: ClusterSettings, subjects: number): Promise<void> {
  const load = { durationSeconds: settings.seconds, connections: settings.connections };
  const baselines = [(await runLoad(bare, load)).requestsPerSecond];
  for (let round = 1; round <= settings.rounds; round++) {
    for (const topology of topologies) {
      const scenario = freshJobScenario(topology, subjects);
      if (WARMUP_SECONDS > 0) await runLoad(scenario, { ...load, durationSeconds: WARMUP_SECONDS });
      const before = await topology.meter.sample();
      const figure = await runLoad(scenario, load);
      const work = NodeMeter.between(before, await topology.meter.sample());
      baselines.push((await runLoad(bare, load)).requestsPerSecond);
      topology.rounds.push({ figure, baseline: (baselines.at(-2)! + baselines.at(-1)!) / 2, work });
      process.stdout.write(`  (d) round ${round}, ${topology.title}: ${figure.requestsPerSecond} req/s\n`);
    }
  }
}

function freshJobScenario(topology: Topology, subjects: number): HttpScenario {
  return {
    id: 'd',
    title: `POST /v1/jobs, fresh key, ${subjects} subjects, ${topology.title}`,
    backend: 'redis',
    url: topology.api.base,
    pid: topology.api.proc.child.pid,
    options: {
      requests: [
        {
          method: 'POST',
          path: '/v1/jobs',
          headers: { 'content-type': 'application/json' },
          body: '{"input":{"prompt":"bench"}}',
          setupRequest: subjectsInTurn(`fresh-${Date.now()}`, topology.authorizations),
        },
      ],
    },
  };
}

/** A drain on each topology (a warm-up drain first), then its processes stop; the figures of each against the one node. */
async function drainEach(topologies: Topology[], drainJobs: number): Promise<TopologyRun[]> {
  const runs: TopologyRun[] = [];
  for (const topology of topologies) {
    await Promise.all(topology.queues.map((queue) => queue.obliterate({ force: true })));
    const target = { client: topology.client, queues: topology.queues, shardOf: (id: string) => shardOf(id, topology.shards) };
    await drain(target, drainJobs, 'createJob');
    const figure = await drain(target, drainJobs, 'createJob', { workerPid: topology.worker.child.pid, nodes: topology.meter });
    process.stdout.write(`  (g) ${topology.title}: ${figure.jobsPerSecond} jobs/s\n`);
    runs.push(summarise(topology, figure, runs[0]));
    await Promise.all(topology.queues.map((queue) => queue.close()));
    await topology.worker.stop();
    await topology.api.proc.stop();
  }
  return runs;
}

/** A topology's figures; `oneNode` (absent for the one node itself) is what its ratios compare with. */
function summarise(topology: Topology, drained: Awaited<ReturnType<typeof drain>>, oneNode: TopologyRun | undefined): TopologyRun {
  const requests = topology.rounds.reduce((total, r) => total + r.figure.requests, 0);
  const work = addWork(topology.rounds.map((r) => r.work));
  const submitted = perUnit(work, requests);
  // Per-request figures of the API over all rounds, each round weighted by its requests.
  const weighted = (value: (figure: HttpFigure) => number | undefined, digits: number) =>
    topology.rounds.every((r) => value(r.figure) !== undefined)
      ? round(topology.rounds.reduce((total, r) => total + value(r.figure)! * r.figure.requests, 0) / requests, digits)
      : null;
  const apiCpu = weighted((figure) => figure.serverCpuUsPerRequest ?? undefined, 0);
  const reads = weighted((figure) => figure.serverSyscallsPerRequest?.reads, 2);
  const writes = weighted((figure) => figure.serverSyscallsPerRequest?.writes, 2);
  const rounds = topology.rounds.map((r, i) => ({
    requestsPerSecond: r.figure.requestsPerSecond,
    ofBaseline: round(r.figure.requestsPerSecond / r.baseline, 2),
    ofOneNode: oneNode ? round(r.figure.requestsPerSecond / oneNode.submit.rounds[i].requestsPerSecond, 2) : 1,
    apiCpuUsPerRequest: r.figure.serverCpuUsPerRequest,
    p99Ms: r.figure.latencyMs.p99,
  }));
  const drainWork = perUnit(drained.nodes!, drained.jobs);
  return {
    id: topology.id,
    title: topology.title,
    primaries: topology.primaries,
    replicas: topology.replicas,
    shards: topology.shards,
    queues: topology.queuePlacement,
    submit: {
      requests,
      rounds,
      ...roundMeans(rounds),
      apiCpuUsPerRequest: apiCpu,
      apiSyscallsPerRequest: reads !== null && writes !== null ? { reads, writes } : null,
      ofOneNodeByCpu:
        oneNode?.submit.apiCpuUsPerRequest && apiCpu ? round(oneNode.submit.apiCpuUsPerRequest / apiCpu, 2) : oneNode ? null : 1,
      redisCommandsPerRequest: submitted.commands,
      redisCpuUsPerRequest: submitted.cpuUs,
      replicaCpuUsPerRequest: submitted.replicaCpuUs,
      nodes: shares(work, requests, topology.placement),
    },
    drain: {
      jobs: drained.jobs,
      seconds: drained.seconds,
      jobsPerSecond: drained.jobsPerSecond,
      ofOneNode: oneNode ? round(drained.jobsPerSecond / oneNode.drain.jobsPerSecond, 2) : 1,
      workerCpuUsPerJob: drained.workerCpuUsPerJob,
      redisCpuUsPerJob: drainWork.cpuUs,
      redisCommandsPerJob: drained.redisCommandsPerJob,
      replicaCpuUsPerJob: drainWork.replicaCpuUs,
      nodes: shares(drained.nodes!, drained.jobs, topology.placement),
    },
  };
}

/** `count` subject names whose keys fall on the primaries in equal numbers (as near as `count` allows). */
function balancedSubjects(count: number, primaries: number, primaryOf: (subject: string) => number): string[] {
  const chosen: string[] = [];
  const perPrimary = new Map<number, number>();
  for (let i = 0; chosen.length < count && i < count * 100; i++) {
    const subject = `bench-${i}`;
    const port = primaryOf(subject);
    const taken = perPrimary.get(port) ?? 0;
    if (taken >= Math.ceil(count / primaries)) continue;
    perPrimary.set(port, taken + 1);
    chosen.push(subject);
  }
  return chosen;
}
