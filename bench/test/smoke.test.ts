import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { expect } from 'chai';
import { repoRoot } from '../../test/testkit/node-process';
import { runBuilt } from './support/run-built';

const ROOT = repoRoot();

const number = { type: 'number', minimum: 0 };
const positive = { type: 'number', exclusiveMinimum: 0 };
const httpFigure = {
  type: 'object',
  required: [
    'id',
    'title',
    'backend',
    'requestsPerSecond',
    'requests',
    'latencyMs',
    'non2xx',
    'errors',
    'redisCommandsPerRequest',
    'serverCpuUsPerRequest',
    'serverSyscallsPerRequest',
    'serverRssMbAfter',
    'baselineRequestsPerSecond',
    'ofBaseline',
    'ofBaselineByCpu',
  ],
  properties: {
    id: { type: 'string' },
    backend: { enum: ['none', 'memory', 'redis'] },
    requestsPerSecond: positive,
    requests: positive,
    latencyMs: { type: 'object', required: ['p50', 'p99', 'max'], properties: { p50: number, p99: number, max: number } },
    non2xx: { const: 0 },
    errors: { const: 0 },
    redisCommandsPerRequest: { type: ['number', 'null'] },
    serverCpuUsPerRequest: { type: ['number', 'null'] },
    serverSyscallsPerRequest: { type: ['object', 'null'] },
    serverRssMbAfter: { type: ['number', 'null'] },
    baselineRequestsPerSecond: positive,
    ofBaseline: positive,
    ofBaselineByCpu: { type: ['number', 'null'] },
  },
};
const drainFigure = {
  type: 'object',
  required: ['jobs', 'seconds', 'jobsPerSecond', 'workerCpuUsPerJob', 'redisCpuUsPerJob', 'redisCommandsPerJob'],
  properties: { jobs: positive, seconds: positive, jobsPerSecond: positive, redisCommandsPerJob: positive },
};
const memoryFigure = { type: 'object', required: ['rssMb', 'peakRssMb'], properties: { rssMb: positive, peakRssMb: positive } };
const nodeShare = {
  type: 'object',
  required: [
    'port',
    'role',
    'commandsPerUnit',
    'cpuUsPerUnit',
    'commandShare',
    'cpuShare',
    'busy',
    'commandsPerSecond',
    'keys',
    'commandsPerCpuSecond',
  ],
  properties: { role: { enum: ['primary', 'replica'] }, commandsPerUnit: number, cpuUsPerUnit: number, busy: number },
};
const topologyRun = {
  type: 'object',
  required: ['id', 'title', 'primaries', 'replicas', 'shards', 'queues', 'submit', 'drain'],
  properties: {
    submit: {
      type: 'object',
      required: [
        'requests',
        'rounds',
        'requestsPerSecond',
        'ofBaseline',
        'ofOneNode',
        'apiCpuUsPerRequest',
        'apiSyscallsPerRequest',
        'redisCommandsPerRequest',
        'redisCpuUsPerRequest',
        'nodes',
      ],
      properties: {
        requests: positive,
        requestsPerSecond: positive,
        ofBaseline: positive,
        ofOneNode: positive,
        redisCommandsPerRequest: positive,
        redisCpuUsPerRequest: positive,
        nodes: { type: 'array', items: nodeShare, minItems: 1 },
      },
    },
    drain: {
      type: 'object',
      required: ['jobs', 'seconds', 'jobsPerSecond', 'ofOneNode', 'workerCpuUsPerJob', 'redisCpuUsPerJob', 'redisCommandsPerJob', 'nodes'],
      properties: {
        jobs: positive,
        jobsPerSecond: positive,
        ofOneNode: positive,
        redisCommandsPerJob: positive,
        redisCpuUsPerJob: positive,
        nodes: { type: 'array', items: nodeShare, minItems: 1 },
      },
    },
  },
};
const clusterResults = {
  type: 'object',
  required: ['available', 'settings', 'runs', 'ceiling'],
  properties: {
    available: { const: true },
    runs: { type: 'array', items: topologyRun, minItems: 3, maxItems: 3 },
    ceiling: {
      type: 'object',
      required: [
        'redisCpuUsPerJob',
        'jobsPerSecondPerPrimary',
        'oneNodeJobsPerSecond',
        'commandsPerCpuSecond',
        'peak',
        'queueShare',
        'busiest',
        'arithmetic',
        'oneSubjectJobsPerSecond',
      ],
      properties: {
        jobsPerSecondPerPrimary: positive,
        oneNodeJobsPerSecond: positive,
        queueShare: { type: 'number', minimum: 0, maximum: 1 },
        arithmetic: { type: 'array', minItems: 4 },
      },
    },
  },
};

/** The shape `bench/results.json` must have, whichever mode wrote it. */
const RESULTS_SCHEMA = {
  type: 'object',
  required: [
    'schema',
    'mode',
    'startedAt',
    'finishedAt',
    'machine',
    'settings',
    'baseline',
    'http',
    'mcp',
    'drain',
    'latency',
    'memory',
    'cluster',
    'targets',
  ],
  properties: {
    schema: { const: 1 },
    mode: { const: 'smoke' },
    machine: {
      type: 'object',
      required: ['cores', 'node', 'redis', 'loadAverage'],
      properties: {
        cores: { type: 'integer', minimum: 1 },
        node: { type: 'string', pattern: '^v\\d+\\.' },
        redis: { type: 'string', pattern: '^\\d+\\.\\d+' },
        loadAverage: { type: 'object', required: ['start', 'end'] },
      },
    },
    baseline: {
      type: 'object',
      required: ['first', 'last', 'requestsPerSecond', 'runs'],
      properties: { first: positive, last: positive, requestsPerSecond: positive, runs: { type: 'array', items: positive, minItems: 7 } },
    },
    http: { type: 'array', items: httpFigure, minItems: 6 },
    mcp: { type: 'object', required: ['available'], properties: { available: { type: 'boolean' } } },
    drain: {
      type: 'object',
      required: ['connector', 'bare', 'ofBare', 'pairs'],
      properties: { connector: drainFigure, bare: drainFigure, ofBare: positive, pairs: { type: 'array', items: positive, minItems: 1 } },
    },
    latency: {
      type: 'object',
      required: ['ratePerSecond', 'jobs', 'submitToSucceededMs', 'submitMs'],
      properties: { jobs: positive, submitToSucceededMs: { type: 'object', required: ['p50', 'p99', 'max'] } },
    },
    memory: { type: 'object', required: ['api', 'worker'], properties: { api: memoryFigure, worker: memoryFigure } },
    cluster: clusterResults,
    targets: {
      type: 'array',
      minItems: 8,
      items: {
        type: 'object',
        required: ['name', 'value', 'comparison', 'target', 'met'],
        properties: { met: { type: ['boolean', 'null'] } },
      },
    },
  },
};

/** A temporary directory for the enclosing describe's tests (its TMPDIR and outputs), removed after them. */
function temporaryDirectory(prefix: string): () => string {
  let dir: string | undefined;
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), prefix))));
  after(() => dir && rmSync(dir, { recursive: true, force: true }));
  return () => dir!;
}

describe('the benchmark smoke run (bench/dist/bench/run.js --smoke) on Redis', function () {
  // A few seconds of load per scenario plus process start-ups and a 6-node cluster; generous for a loaded CI machine.
  this.timeout(300_000);
  const dir = temporaryDirectory('bench-smoke-test-');

  it('runs every scenario end to end with zero non-2xx answers and writes a well-formed results.json', async () => {
    const out = path.join(dir(), 'results.json');
    const { code, output } = await runBuilt('run.js', ['--smoke', '--out', out], dir());
    expect(code, output).to.equal(0);

    const results = JSON.parse(readFileSync(out, 'utf8')) as Record<string, any>;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(RESULTS_SCHEMA);
    expect(validate(results), JSON.stringify(validate.errors)).to.equal(true);
    expect(results.machine.cores).to.equal(os.cpus().length);
    expect(results.machine.node).to.equal(process.version);
    const ids = results.http.map((figure: { id: string }) => figure.id);
    // /mcp is always mounted, so the MCP scenario (f) must have run.
    expect(ids).to.include.members(['a', 'b', 'c', 'd', 'e', 'f', 'b-memory']);
    expect(
      results.http
        .filter((figure: { backend: string }) => figure.backend === 'redis')
        .every((figure: { redisCommandsPerRequest: number }) => figure.redisCommandsPerRequest > 0),
    ).to.equal(true);
    // (a) before the first scenario and after each one; every scenario is compared with the two beside it.
    const runs = results.baseline.runs as number[];
    const figures = results.http.slice(1) as Array<{
      id: string;
      requestsPerSecond: number;
      baselineRequestsPerSecond: number;
      ofBaseline: number;
    }>;
    expect(runs).to.have.length(figures.length + 1);
    figures.forEach((figure, i) => {
      expect(figure.baselineRequestsPerSecond, figure.id).to.be.closeTo((runs[i] + runs[i + 1]) / 2, 1);
      expect(figure.ofBaseline, figure.id).to.be.closeTo(figure.requestsPerSecond / figure.baselineRequestsPerSecond, 0.011);
    });
    expect(output).to.contain(`(a) before the first scenario and after each: ${runs.join(', ')} req/s`);
    expect(results.mcp.available).to.equal(true);
    expect(results.drain.connector.jobs).to.equal(results.settings.drainJobs);
    expect(results.drain.pairs).to.have.length(results.settings.drainPairs);
    expect(results.latency.jobs).to.equal(results.settings.latencyRatePerSecond * results.settings.latencySeconds);
    // The table went to the terminal too.
    expect(output).to.contain('| target | measured | goal | met |');

    // The cluster runs: one node, then a 3-primary cluster with 1 and 3 job-queue shards, each measured node by node.
    const cluster = results.cluster;
    expect(
      cluster.runs.map((run: { id: string; primaries: number; replicas: number; shards: number }) => [
        run.id,
        run.primaries,
        run.replicas,
        run.shards,
      ]),
    ).to.deep.equal([
      ['one-node', 1, 0, 1],
      ['cluster-1', 3, 3, 1],
      ['cluster-3', 3, 3, 3],
    ]);
    type Share = { port: number; role: string; commandShare: number | null; commandsPerUnit: number };
    const primaries = (nodes: Share[]) => nodes.filter((node) => node.role === 'primary');
    const [, single, spread] = cluster.runs as Array<{
      queues: Array<{ port: number }>;
      submit: { nodes: Share[] };
      drain: { jobs: number; nodes: Share[] };
    }>;
    for (const run of [single, spread]) {
      const shares = primaries(run.submit.nodes).map((node) => node.commandShare!);
      expect(shares.reduce((total, share) => total + share, 0)).to.be.closeTo(1, 0.01);
      expect(run.drain.jobs).to.equal(cluster.settings.drainJobs);
    }
    // With one shard the queue's primary runs the whole drain; with three (on three distinct primaries) each carries a part.
    const queuePrimary = primaries(single.drain.nodes).find((node) => node.port === single.queues[0].port)!;
    expect(queuePrimary.commandShare).to.be.greaterThan(0.9);
    expect(new Set(spread.queues.map((queue) => queue.port)).size).to.equal(3);
    for (const node of primaries(spread.drain.nodes)) expect(node.commandShare, String(node.port)).to.be.greaterThan(0.15);
    expect(output).to.match(/^Per-primary ceiling: a paid job costs [0-9.]+ µs of primary CPU/m);
  });
});

describe('the build comparison smoke runs (bench/dist/bench/compare.js, compare-drain.js) on Redis', function () {
  this.timeout(120_000);
  const dir = temporaryDirectory('bench-compare-test-');

  it('two builds (this one, once with a Node flag) loaded together: a CPU figure per build and round, and the paired summary', async () => {
    const dist = path.join(ROOT, 'dist');
    const { code, output } = await runBuilt(
      'compare.js',
      [dist, `${dist}@--max-semi-space-size=16`, '--scenarios', 'b,f', '--rounds', '2', '--seconds', '1', '--idle-seconds', '1'],
      dir(),
    );
    expect(code, output).to.equal(0);
    for (const id of ['b', 'f']) {
      expect(output.match(new RegExp(`^round \\d \\(${id}\\): .+ [0-9.]+ µs, .+ [0-9.]+ µs$`, 'gm')), output).to.have.length(2);
      expect(output, output).to.match(
        new RegExp(
          `^\\(${id}\\) .+@--max-semi-space-size=16: [0-9.]+ µs, [-+][0-9.]+ % \\(median of pairs\\), lower in [0-2] of 2 rounds$`,
          'm',
        ),
      );
    }
    // Each API's resident memory right after the load and again after the idle second.
    expect(output, output).to.match(/^API RSS MB: right after the last load, then after 1 s idle$/m);
    expect(output.match(/^.*dist(@--max-semi-space-size=16)?: [0-9.]+, [0-9.]+$/gm), output).to.have.length(2);
  });

  it('the workers of two builds draining the same jobs in turns: a line per pair and the median of the paired ratios', async () => {
    const dist = path.join(ROOT, 'dist');
    const { code, output } = await runBuilt(
      'compare-drain.js',
      [dist, `${dist}@--max-semi-space-size=8`, '--pairs', '2', '--jobs', '200'],
      dir(),
    );
    expect(code, output).to.equal(0);
    const pairs = output.match(/^pair \d: .+ [0-9]+ jobs\/s, [0-9]+ µs CPU\/job; .+ [0-9]+ jobs\/s, [0-9]+ µs CPU\/job$/gm);
    expect(pairs, output).to.have.length(2);
    expect(output, output).to.match(
      /^.+@--max-semi-space-size=8 against .+, median of 2 pairs: jobs\/s ×[0-9.]+ \(ratios [0-9.]+, [0-9.]+\), worker CPU per job ×[0-9.]+$/m,
    );
  });

  it('one build against the bare BullMQ worker (--bare): the pair lines and the build’s ratios of bare', async () => {
    const dist = path.join(ROOT, 'dist');
    const { code, output } = await runBuilt('compare-drain.js', [dist, '--bare', '--pairs', '1', '--jobs', '100'], dir());
    expect(code, output).to.equal(0);
    expect(output, output).to.match(/^pair 1: bare BullMQ [0-9]+ jobs\/s, [0-9]+ µs CPU\/job; .+dist [0-9]+ jobs\/s, [0-9]+ µs CPU\/job$/m);
    expect(output, output).to.match(/^.+dist against bare BullMQ on .+, median of 1 pairs: jobs\/s ×[0-9.]+ \(ratios [0-9.]+\)/m);
  });
});

describe('the floor smoke run (bench/dist/bench/floor.js) on Redis', function () {
  this.timeout(120_000);
  const dir = temporaryDirectory('bench-floor-test-');

  it('bare, floor and API loaded together per stretch: a CPU figure each per round, and each ratio to bare and to the floor', async () => {
    const { code, output } = await runBuilt('floor.js', ['--rounds', '1', '--seconds', '1'], dir());
    expect(code, output).to.equal(0);
    const stretches = [
      ['read', 'floor GET /read', '\\(b\\) GET /v1/me'],
      ['job', 'floor POST /job', '\\(d\\) fresh POST /v1/jobs'],
      ['replay', 'floor POST /replay', '\\(e\\) replayed POST /v1/jobs'],
    ];
    for (const [name, floor, api] of stretches) {
      expect(output, output).to.match(new RegExp(`^round 1 \\(${name}\\): bare [0-9.]+ µs, ${floor} [0-9.]+ µs, ${api} [0-9.]+ µs$`, 'm'));
      expect(output, output).to.match(new RegExp(`^${floor}: [0-9.]+ of bare; ${api}: [0-9.]+ of bare, [0-9.]+ of the floor$`, 'm'));
    }
  });

  it('--only replay loads the replay stretch alone; an unknown stretch is refused, naming the three', async () => {
    const only = await runBuilt('floor.js', ['--rounds', '1', '--seconds', '1', '--only', 'replay'], dir());
    expect(only.code, only.output).to.equal(0);
    expect(only.output.match(/^round 1 \((\w+)\):/gm), only.output).to.deep.equal(['round 1 (replay):']);
    const unknown = await runBuilt('floor.js', ['--rounds', '1', '--seconds', '1', '--only', 'fresh'], dir());
    expect(unknown.code, unknown.output).to.not.equal(0);
    expect(unknown.output).to.include('--only names one of read, job, replay');
  });
});

describe('the webhook-receiver smoke run (bench/dist/bench/webhook-drag.js --smoke) on Redis', function () {
  this.timeout(180_000);
  const dir = temporaryDirectory('bench-webhooks-test-');

  it('three pairs under the same load: every job of each pair succeeds, the dead receiver holds requests and leaves deliveries waiting', async () => {
    const out = path.join(dir(), 'results.json');
    const { code, output } = await runBuilt('webhook-drag.js', ['--smoke', '--out', out], dir());
    expect(code, output).to.equal(0);
    const { webhookDrag } = JSON.parse(readFileSync(out, 'utf8')) as { webhookDrag: Record<string, any> };
    for (const pair of ['live', 'control', 'dead']) {
      expect(webhookDrag[pair], pair).to.have.length(webhookDrag.rounds);
      for (const round of webhookDrag[pair]) expect(round.jobs, pair).to.equal(webhookDrag.ratePerSecond * webhookDrag.seconds);
    }
    expect(webhookDrag.deadReceiver.requestsHeldOpen).to.be.greaterThan(0);
    expect(webhookDrag.deadReceiver.deliveriesNotYetDone).to.be.greaterThan(0);
    expect(webhookDrag.liveReceiver.requestsAnswered).to.be.greaterThan(0);
    for (const key of ['submitP50', 'submitP99', 'toSucceededP50', 'toSucceededP99'])
      expect(webhookDrag.deadOverLive[key], key).to.be.greaterThan(0);
  });
});

describe('the pipeline, allocation and peer smoke runs (bench/dist/bench/pipeline.js, allocations.js, peer.js)', function () {
  this.timeout(120_000);
  const dir = temporaryDirectory('bench-pipeline-test-');
  const figure = '[0-9.]+';

  it('both pipelines take the same jobs: each part’s CPU per job per round, then the medians and the floor’s ratio', async () => {
    const { code, output } = await runBuilt('pipeline.js', ['--rounds', '1', '--jobs', '100'], dir());
    expect(code, output).to.equal(0);
    const cost = `API ${figure} \\+ worker ${figure} \\+ Redis ${figure} = ${figure} µs/job`;
    expect(output, output).to.match(new RegExp(`^round 1: connector ${cost}; floor ${cost}; floor/connector ${figure}$`, 'm'));
    expect(output, output).to.match(
      new RegExp(`^connector: ${cost}\\nfloor: ${cost}\\nfloor/connector: ${figure} \\(rounds ${figure}\\)$`, 'm'),
    );
  });

  it('every request kind on its server alone: heap bytes per request from the probe, with the collections counted', async () => {
    const { code, output } = await runBuilt('allocations.js', ['--requests', '200', '--warmup', '0'], dir());
    expect(code, output).to.equal(0);
    const kinds = ['bare Express GET /bare', 'floor GET /read', '\\(b\\) GET /v1/me', 'floor POST /job', '\\(d\\) fresh POST /v1/jobs'];
    for (const kind of [...kinds, 'floor POST /replay', '\\(e\\) replayed POST /v1/jobs']) {
      // V8's own count is printed beside the probe's only on a Node that has it (26 does, 20 does not).
      const line = new RegExp(`^${kind}: ${figure} KB( \\(V8's count ${figure} KB\\))? over 200 requests, \\d+ collections$`, 'm');
      expect(output, output).to.match(line);
    }
  });

  it('a peer started from a command and loaded beside the API: CPU per request of each on every shared route', async () => {
    const peer = `node ${path.join(ROOT, 'bench', 'test', 'support', 'stand-in-peer.mjs')}`;
    const { code, output } = await runBuilt('peer.js', ['--peer-command', peer, '--rounds', '1', '--seconds', '1'], dir());
    expect(code, output).to.equal(0);
    for (const route of ['GET /v1/me', 'fresh paid job', 'replay', 'job read']) {
      expect(output, output).to.match(new RegExp(`^round 1 \\(${route}\\): ours ${figure} µs, peer ${figure} µs$`, 'm'));
      expect(output, output).to.match(new RegExp(`^${route}: ${figure} \\(rounds ${figure}\\)$`, 'm'));
    }
  });
});
