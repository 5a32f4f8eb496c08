import type { ClusterResults } from './cluster-figures';

const pct = (share: number | null | undefined): string => (share === null || share === undefined ? '' : `${Math.round(share * 100)} %`);
const n = (value: number | null | undefined): string => (value === null || value === undefined ? 'n/a' : String(value));

/** The cluster runs as Markdown tables (the same shape as bench/README.md's "Redis Cluster" section). */
export function formatCluster(cluster: ClusterResults): string[] {
  if (!cluster.available || !cluster.runs || !cluster.settings)
    return ['', `Redis Cluster runs: not run (${cluster.reason ?? 'unknown reason'})`];
  const { settings, runs, ceiling } = cluster;
  const lines = [
    '',
    `Redis Cluster (${runs[1]?.primaries ?? '?'} primaries, ${runs[1]?.replicas ?? '?'} replicas) against one node: (d) fresh paid jobs from ${settings.subjects} subjects in turn, ` +
      `${settings.rounds} round(s) of ${settings.seconds}s per topology, ${settings.connections} connections; (g) drain of ${settings.drainJobs} jobs`,
    '',
    '| topology | (d) req/s | of one node | of (a) | API CPU µs/req | of one node by CPU | API syscalls/req r+w | Redis cmds/req | primaries CPU µs/req | replicas CPU µs/req | (g) jobs/s | of one node | worker CPU µs/job | Redis cmds/job | primaries CPU µs/job |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      ({ title, submit: s, drain: d }) =>
        `| ${title} | ${s.requestsPerSecond} | ${s.ofOneNode.toFixed(2)} | ${s.ofBaseline.toFixed(2)} | ${n(s.apiCpuUsPerRequest)} | ${s.ofOneNodeByCpu?.toFixed(2) ?? 'n/a'} | ${s.apiSyscallsPerRequest ? `${s.apiSyscallsPerRequest.reads}+${s.apiSyscallsPerRequest.writes}` : 'n/a'} | ${s.redisCommandsPerRequest} | ${s.redisCpuUsPerRequest} | ${n(s.replicaCpuUsPerRequest)} | ` +
        `${d.jobsPerSecond} | ${d.ofOneNode.toFixed(2)} | ${n(d.workerCpuUsPerJob)} | ${d.redisCommandsPerJob} | ${d.redisCpuUsPerJob} |`,
    ),
    '',
    'Spread over the primaries: (d) per request and the keys it added, (g) per job; "busy" is CPU over wall time.',
    '',
    '| topology | primary | slots | queue shards | (d) cmds/req | share | (d) CPU µs/req | share | busy | keys added | (g) cmds/job | (g) CPU µs/job | share |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const run of runs) {
    for (const node of run.submit.nodes.filter((node) => node.role === 'primary')) {
      const drained = run.drain.nodes.find((other) => other.port === node.port);
      lines.push(
        `| ${run.title} | :${node.port} | ${node.slots ?? 'all'} | ${node.queueShards?.join(', ') || '-'} | ${node.commandsPerUnit} | ${pct(node.commandShare)} | ${node.cpuUsPerUnit} | ${pct(node.cpuShare)} | ${pct(node.busy)} | ${node.keys} | ` +
          `${drained?.commandsPerUnit ?? ''} | ${drained?.cpuUsPerUnit ?? ''} | ${pct(drained?.cpuShare)} |`,
      );
    }
  }
  if (ceiling) {
    lines.push(
      '',
      `Per-primary ceiling: a paid job costs ${ceiling.redisCpuUsPerJob.total} µs of primary CPU on the cluster (submission ${ceiling.redisCpuUsPerJob.submit}, run ${ceiling.redisCpuUsPerJob.run}), ` +
        `so one primary sustains C = ${ceiling.jobsPerSecondPerPrimary} paid jobs/s (one plain node: ${ceiling.oneNodeJobsPerSecond}); ` +
        `a primary serves ${ceiling.commandsPerCpuSecond.min}-${ceiling.commandsPerCpuSecond.max} commands per CPU second. Queue share q = ${ceiling.queueShare}.`,
      `Busiest primary of the run: ${ceiling.peak.commandsPerSecond} commands/s at ${pct(ceiling.peak.busy)} of a core (${ceiling.peak.run}, ${ceiling.peak.stretch}, :${ceiling.peak.port}): ${n(ceiling.peak.commandsPerCpuSecond)} commands per CPU second.`,
      `Busiest primary's share of a paid job's Redis CPU: ${ceiling.busiest.map((b) => `${b.run} ${pct(b.measured)} (arithmetic: ${pct(b.predicted)})`).join(', ')}. ` +
        `One subject alone: at most ${ceiling.oneSubjectJobsPerSecond} jobs/s.`,
      '',
      '| primaries P | paid jobs/s, 1 shard | paid jobs/s, N = P shards evenly placed |',
      '|---|---|---|',
      ...ceiling.arithmetic.map((row) => `| ${row.primaries} | ${row.oneShard} | ${row.evenShards} |`),
    );
  }
  return lines;
}
