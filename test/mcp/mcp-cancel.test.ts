import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { callOk, connectMcp, legacyTasks, modernTasks, OutputChecker, REVISIONS } from '../support/mcp-client';
import { scriptedJobs } from '../support/scripted-jobs';
import { waitFor } from '../testkit/wait-for';

// One job at a time and a long placeholder: a first job keeps running, so the next one stays queued.
describe('cancelling jobs over MCP (cancel_job, tasks/cancel)', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  let mcpUrl: string;

  before(async () => {
    connector = await startConnector('memory', { WORKER_CONCURRENCY: '1', PLACEHOLDER_JOB_MS: '60000' }, { operations: scriptedJobs() });
    mcpUrl = `${connector.baseUrl}/mcp`;
  });
  after(async () => connector?.close());

  const createJob = (client: Client, checker: OutputChecker, prompt: string) =>
    callOk(client, checker, 'create_job', { input: { prompt }, idempotency_key: newKey() });
  const settled = (client: Client, checker: OutputChecker, id: string, status: string) =>
    waitFor(async () => (await callOk(client, checker, 'get_job', { id })).status === status, { what: `job ${id} to be ${status}` });

  for (const revision of REVISIONS) {
    it(`cancel_job on ${revision}: a queued job is canceled and refunded at once, a running one is asked to stop and ends canceled`, async () => {
      const client = await connectMcp(mcpUrl, await connector.link(newSubject()), revision);
      try {
        const checker = new OutputChecker((await client.listTools()).tools);
        const running = await createJob(client, checker, 'long');
        await settled(client, checker, running.id, 'running');
        const queued = await createJob(client, checker, 'waits');
        const canceled = await callOk(client, checker, 'cancel_job', { id: queued.id });
        expect(canceled).to.include({ id: queued.id, status: 'canceled', refunded_credits: queued.cost, started_at: null });
        const stopping = await callOk(client, checker, 'cancel_job', { id: running.id });
        expect(stopping).to.include({ id: running.id, status: 'running' });
        expect(stopping.cancel_requested_at).to.be.a('string');
        await settled(client, checker, running.id, 'canceled');
        expect(await callOk(client, checker, 'get_job', { id: running.id })).to.include({ refunded_credits: running.cost });
      } finally {
        await client.close();
      }
    });
  }

  it('tasks/cancel on 2025-11-25: a queued task is cancelled at once; a running one is cancelled before the answer and stays cancelled while its job stops, and tasks/result then answers at once', async () => {
    const client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2025-11-25');
    try {
      const running = (await legacyTasks.create(client, 'create_job', { input: { prompt: 'long' }, idempotency_key: newKey() })).task;
      await waitFor(async () => (await connectedJob(client, running.taskId)) === 'running', { what: 'the first job to start' });
      const queued = (await legacyTasks.create(client, 'create_job', { input: { prompt: 'waits' }, idempotency_key: newKey() })).task;
      expect((await legacyTasks.cancel(client, queued.taskId)).status).to.equal('cancelled');
      // The specification: the task moves to cancelled before the answer, and never leaves it.
      const stopping = await legacyTasks.cancel(client, running.taskId);
      expect(stopping).to.include({ taskId: running.taskId, status: 'cancelled' });
      expect(stopping.statusMessage).to.match(/^Cancel requested/);
      expect((await legacyTasks.get(client, running.taskId)).status).to.equal('cancelled');
      await waitFor(async () => (await connectedJob(client, running.taskId)) === 'canceled', { what: 'the job to stop' });
      expect((await legacyTasks.get(client, running.taskId)).status).to.equal('cancelled');
      const result = await legacyTasks.result(client, running.taskId);
      expect(result.isError).to.equal(true);
      expect(result.structuredContent).to.deep.include({ id: running.taskId, status: 'canceled', refunded_credits: 1 });
    } finally {
      await client.close();
    }
  });

  it('tasks/cancel on 2026-07-28: a queued task is cancelled at once and tasks/get then shows it cancelled; a running one is cancelled at once and stays so', async () => {
    const token = await connector.link(newSubject());
    const client = await connectMcp(mcpUrl, token, '2026-07-28', { tasks: true });
    try {
      const running = {
        id: (await modernTasks.create(mcpUrl, token, 'create_job', { input: { prompt: 'long' }, idempotency_key: newKey() })).taskId,
      };
      await waitFor(async () => (await connectedJob(client, running.id)) === 'running', { what: 'the first job to start' });
      const created = await modernTasks.create(mcpUrl, token, 'create_job', { input: { prompt: 'waits' }, idempotency_key: newKey() });
      const canceled = await modernTasks.cancel(client, created.taskId);
      expect(canceled).to.include({ taskId: created.taskId, status: 'cancelled' });
      expect((await modernTasks.get(client, created.taskId)).status).to.equal('cancelled');
      expect((await modernTasks.cancel(client, running.id)).status).to.equal('cancelled');
      await waitFor(async () => (await connectedJob(client, running.id)) === 'canceled', { what: 'the running job to stop' });
      expect((await modernTasks.get(client, running.id)).status).to.equal('cancelled');
    } finally {
      await client.close();
    }
  });

  for (const revision of REVISIONS) {
    it(`tasks/cancel on ${revision} of a task already cancelled is an invalid-params error, whether its job is still stopping or canceled`, async () => {
      const token = await connector.link(newSubject());
      const client = await connectMcp(mcpUrl, token, revision, { tasks: revision === '2026-07-28' });
      const tasks = revision === '2026-07-28' ? modernTasks : legacyTasks;
      const create = async (prompt: string) => {
        const args = { input: { prompt }, idempotency_key: newKey() };
        return revision === '2026-07-28'
          ? (await modernTasks.create(mcpUrl, token, 'create_job', args)).taskId
          : (await legacyTasks.create(client, 'create_job', args)).task.taskId;
      };
      try {
        const running = await create('long');
        await waitFor(async () => (await connectedJob(client, running)) === 'running', { what: 'the job to start' });
        expect((await tasks.cancel(client, running)).status).to.equal('cancelled');
        await expectInvalidParams(() => tasks.cancel(client, running), /already finished or been cancelled/);
        await waitFor(async () => (await connectedJob(client, running)) === 'canceled', { what: 'the job to stop' });
        await expectInvalidParams(() => tasks.cancel(client, running), /already finished or been cancelled/);
      } finally {
        await client.close();
      }
    });
  }

  it('a 2025-11-25 task asked with a ttl of 60 s is answered with the ttl the connector keeps it (the idempotency retention), the same in tasks/get and tasks/cancel', async () => {
    const client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2025-11-25');
    const kept = connector.config.idempotencyTtlSeconds * 1000;
    try {
      const created = (await legacyTasks.create(client, 'create_job', { input: { prompt: 'ttl' }, idempotency_key: newKey() })).task;
      expect(created.ttl).to.equal(kept).and.not.equal(60_000);
      expect((await legacyTasks.get(client, created.taskId)).ttl).to.equal(kept);
      expect((await legacyTasks.cancel(client, created.taskId)).ttl).to.equal(kept);
    } finally {
      await client.close();
    }
  });
});

describe('cancelling finished or unknown tasks over MCP', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  let mcpUrl: string;

  before(async () => {
    connector = await startConnector('memory', {}, { operations: scriptedJobs() });
    mcpUrl = `${connector.baseUrl}/mcp`;
  });
  after(async () => connector?.close());

  for (const revision of REVISIONS) {
    it(`tasks/cancel on ${revision} of a finished task or an unknown one is an invalid-params error, and changes nothing`, async () => {
      const token = await connector.link(newSubject());
      const client = await connectMcp(mcpUrl, token, revision, { tasks: revision === '2026-07-28' });
      try {
        const arguments_ = { input: { prompt: 'fail' }, idempotency_key: newKey() };
        const id =
          revision === '2026-07-28'
            ? (await modernTasks.create(mcpUrl, token, 'create_job', arguments_)).taskId
            : (await legacyTasks.create(client, 'create_job', arguments_)).task.taskId;
        await waitFor(async () => (await connectedJob(client, id)) === 'failed', { what: 'the job to fail' });
        const tasks = revision === '2026-07-28' ? modernTasks : legacyTasks;
        await expectInvalidParams(() => tasks.cancel(client, id), /already finished/);
        await expectInvalidParams(() => tasks.cancel(client, 'job_unknown'), /Unknown task id/);
        const result = (await client.callTool({ name: 'get_job', arguments: { id } })) as { structuredContent?: object };
        expect(result.structuredContent).to.include({ status: 'failed', cancel_requested_at: null });
      } finally {
        await client.close();
      }
    });
  }
});

/** The job status behind a task, read with `get_job` (not a task-augmented call, so answered directly). */
async function connectedJob(client: Client, id: string): Promise<string> {
  const result = (await client.callTool({ name: 'get_job', arguments: { id } })) as { structuredContent?: { status?: string } };
  return String(result.structuredContent?.status);
}

async function expectInvalidParams(call: () => Promise<unknown>, message: RegExp): Promise<void> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught as { code?: number; message?: string },
  );
  expect(error, 'the call should have been refused').to.not.equal(undefined);
  expect(error!.code).to.equal(-32602);
  expect(error!.message).to.match(message);
}
