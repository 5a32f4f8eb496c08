import { expect } from 'chai';
import { type RunningApi, startApi } from '../../api/start-api';
import { loadConfig } from '../../shared/platform/config/config';
import { createLogger } from '../../shared/platform/logging/logger';
import { type Call, checkedClient } from '../support/checked-client';
import { BASE_ENV, inProcessWorker, newKey, newSubject } from '../support/harness';
import { linkedToken } from '../support/link-requests';
import { LogCapture } from '../support/log-capture';
import { callOk, connectMcp, legacyTasks, modernTasks, OutputChecker, pollJobOverMcp, REVISIONS } from '../support/mcp-client';
import { type Replica, roundRobinProxy } from '../support/round-robin-proxy';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('two API replicas on one Redis behind a round-robin proxy, one MCP client', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let a: RunningApi;
  let b: RunningApi;
  let proxy: Awaited<ReturnType<typeof roundRobinProxy>>;
  let baseA: string;
  let callA: Call;

  before(async () => {
    redis = await startRedis();
    const env = { ...BASE_ENV, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'replicas:' };
    const config = loadConfig(env, 'dev');
    const logger = createLogger('warn', 'replica-test', new LogCapture());
    // Only B consumes the queue: a job accepted by A is run by "another machine".
    [a, b] = await Promise.all([
      startApi(config, logger, { env }),
      startApi(config, logger, { jobConsumer: inProcessWorker(config, logger), env }),
    ]);
    baseA = `http://127.0.0.1:${a.port}`;
    const baseB = `http://127.0.0.1:${b.port}`;
    for (const base of [baseA, baseB]) await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, { what: `${base} ready` });
    proxy = await roundRobinProxy({ A: baseA, B: baseB });
    ({ call: callA } = await checkedClient(baseA));
  });
  after(async () => {
    await proxy?.close();
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  for (const revision of REVISIONS) {
    it(`a ${revision} client completes the walk-through with its requests alternating between the replicas`, async () => {
      const token = await linkedToken(callA, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET });
      const start = proxy.served.length;
      const client = await connectMcp(`${proxy.url}/mcp`, token, revision);
      try {
        const checker = new OutputChecker((await client.listTools()).tools);
        await callOk(client, checker, 'get_me');
        const thing = await callOk(client, checker, 'create_thing', { name: 'replicated' });
        expect((await callOk(client, checker, 'list_things')).items.map((item: { id: string }) => item.id)).to.deep.equal([thing.id]);
        const key = newKey();
        const job = await callOk(client, checker, 'create_job', { input: { prompt: 'anywhere' }, idempotency_key: key });
        expect((await pollJobOverMcp(client, checker, job.id)).status).to.equal('succeeded');
        expect((await callOk(client, checker, 'create_job', { input: { prompt: 'anywhere' }, idempotency_key: key })).id).to.equal(job.id);
        expect((await callOk(client, checker, 'get_me')).usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
      } finally {
        await client.close();
      }
      const mine = proxy.served.slice(start);
      if (revision === '2025-11-25') expect(mine[0].method).to.equal('initialize');
      else expect(mine.map((entry) => entry.method)).to.not.include('initialize');
      const byReplica = (replica: Replica) => mine.filter((entry) => entry.replica === replica && entry.method === 'tools/call').length;
      expect(byReplica('A')).to.be.greaterThan(0);
      expect(byReplica('B')).to.be.greaterThan(0);
    });
  }

  it('a 2025-11-25 task created on one replica is finished by the other’s worker and read back on the other', async () => {
    const token = await linkedToken(callA, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET });
    const client = await connectMcp(`${proxy.url}/mcp`, token, '2025-11-25');
    // The creating call lands on A, which runs no jobs; the result is read on B.
    proxy.steer.set('tools/call', 'A').set('tasks/result', 'B');
    try {
      const start = proxy.served.length;
      const created = await legacyTasks.create(client, 'create_job', {
        input: { prompt: 'task across replicas' },
        idempotency_key: newKey(),
      });
      await waitFor(async () => (await legacyTasks.get(client, created.task.taskId)).status === 'completed', {
        what: 'the task to complete',
      });
      const result = await legacyTasks.result(client, created.task.taskId);
      expect(result.structuredContent).to.include({ id: created.task.taskId, status: 'succeeded' });
      const calls = proxy.served.slice(start).filter((entry) => entry.method !== 'tasks/get');
      expect(calls).to.deep.include.members([
        { replica: 'A', method: 'tools/call' },
        { replica: 'B', method: 'tasks/result' },
      ]);
    } finally {
      proxy.steer.clear();
      await client.close();
    }
  });

  it('a 2026-07-28 task created through the proxy is read with tasks/get on both replicas', async () => {
    const token = await linkedToken(callA, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET });
    const client = await connectMcp(`${proxy.url}/mcp`, token, '2026-07-28', { tasks: true });
    try {
      const created = await modernTasks.create(`${proxy.url}/mcp`, token, 'create_job', {
        input: { prompt: 'modern, anywhere' },
        idempotency_key: newKey(),
      });
      const start = proxy.served.length;
      const done = await waitFor(
        async () => {
          const task = await modernTasks.get(client, created.taskId);
          return task.status === 'completed' ? task : undefined;
        },
        { what: 'the task to complete' },
      );
      await modernTasks.get(client, created.taskId);
      expect(new Set(proxy.served.slice(start).map((entry) => entry.replica))).to.deep.equal(new Set(['A', 'B']));
      expect(done.result!.structuredContent).to.include({ id: created.taskId, status: 'succeeded' });
    } finally {
      await client.close();
    }
  });
});
