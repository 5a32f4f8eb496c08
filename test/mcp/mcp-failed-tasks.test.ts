import { expect } from 'chai';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { connectMcp, legacyTasks, modernTasks, OutputChecker, pollJobOverMcp } from '../support/mcp-client';
import { scriptedJobs } from '../support/scripted-jobs';
import { waitFor } from '../testkit/wait-for';

/** The registry with createJob's processor failing, without retry, for the prompt "fail". */
const FAILING_JOBS = scriptedJobs();

describe('a paid job that fails, seen over MCP', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  let mcpUrl: string;

  before(async () => {
    connector = await startConnector('memory', {}, { operations: FAILING_JOBS });
    mcpUrl = `${connector.baseUrl}/mcp`;
  });
  after(async () => connector?.close());

  it('polling get_job shows status failed with the safe message, as a successful tool result', async () => {
    const client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2026-07-28');
    try {
      const checker = new OutputChecker((await client.listTools()).tools);
      const job = checker.expectValid(
        'create_job',
        (await client.callTool({ name: 'create_job', arguments: { input: { prompt: 'fail' }, idempotency_key: newKey() } })) as never,
      );
      const finished = await pollJobOverMcp(client, checker, job.id);
      expect(finished).to.deep.include({ status: 'failed', error: { message: 'This job fails on purpose.' } });
    } finally {
      await client.close();
    }
  });

  it('a 2026-07-28 task of a failed job is completed with an isError result carrying the job (a tool error, not a JSON-RPC one)', async () => {
    const token = await connector.link(newSubject());
    const client = await connectMcp(mcpUrl, token, '2026-07-28', { tasks: true });
    try {
      const created = await modernTasks.create(mcpUrl, token, 'create_job', { input: { prompt: 'fail' }, idempotency_key: newKey() });
      const done = await waitFor(
        async () => {
          const task = await modernTasks.get(client, created.taskId);
          return task.status !== 'working' ? task : undefined;
        },
        { what: 'the task to end' },
      );
      expect(done.status).to.equal('completed');
      expect(done.result!.isError).to.equal(true);
      expect(done.result!.structuredContent).to.deep.include({ id: created.taskId, status: 'failed' });
    } finally {
      await client.close();
    }
  });

  it('a 2025-11-25 task of a failed job ends failed, and tasks/result is an isError result', async () => {
    const client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2025-11-25');
    try {
      const created = await legacyTasks.create(client, 'create_job', { input: { prompt: 'fail' }, idempotency_key: newKey() });
      const taskId = created.task.taskId;
      await waitFor(async () => (await legacyTasks.get(client, taskId)).status === 'failed', { what: 'the task to fail' });
      const result = await legacyTasks.result(client, taskId);
      expect(result.isError).to.equal(true);
      expect(result.structuredContent).to.deep.include({ id: taskId, status: 'failed', error: { message: 'This job fails on purpose.' } });
    } finally {
      await client.close();
    }
  });
});
