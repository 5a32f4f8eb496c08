import type { Client, Tool } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { EXTENDED_REGISTRY, SHIPPED_REGISTRY } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { callOk, connectMcp, legacyTasks, modernTasks, OutputChecker, pollJobOverMcp, REVISIONS } from '../support/mcp-client';
import { parseExposition, sumOf } from '../support/prometheus-text';
import { INVALID_PARAMS, registryToolTests, rpcError } from '../support/registry-tool-tests';
import { waitFor } from '../testkit/wait-for';

for (const backend of BACKENDS) {
  describe(`MCP tools of ${SHIPPED_REGISTRY.name} over POST /mcp (${backend} backend)`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    let mcpUrl: string;

    before(async () => {
      connector = await startConnector(backend, {}, { operations: SHIPPED_REGISTRY.operations });
      mcpUrl = `${connector.baseUrl}/mcp`;
    });
    after(async () => connector?.close());

    registryToolTests(SHIPPED_REGISTRY.operations, () => connector);

    describe('the placeholder tools', () => {
      for (const revision of REVISIONS) {
        describe(`a ${revision} client`, () => {
          let subject: string;
          let token: string;
          let client: Client;
          let tools: Tool[];
          let checker: OutputChecker;

          before(async () => {
            subject = newSubject();
            token = await connector.link(subject);
            client = await connectMcp(mcpUrl, token, revision);
            tools = (await client.listTools()).tools;
            checker = new OutputChecker(tools);
          });
          after(async () => client?.close());

          it('the placeholder create_job requires input and idempotency_key, and its description names its poll tool get_job', () => {
            const createJob = tools.find((tool) => tool.name === 'create_job')!;
            expect(createJob.inputSchema.required).to.have.members(['input', 'idempotency_key']);
            expect(createJob.annotations).to.include({
              readOnlyHint: false,
              idempotentHint: true,
              destructiveHint: false,
              openWorldHint: false,
            });
            // Without the tasks extension the model polls: the verbatim description names the polling tool.
            expect(createJob.description).to.contain('get_job');
          });

          it('the placeholders’ walk-through (get_me, create_thing, create_job, poll get_job, retry with the same key) charges once, and REST reads the same job', async () => {
            const me = await callOk(client, checker, 'get_me');
            expect(me.usage).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
            const thing = await callOk(client, checker, 'create_thing', { name: 'Holiday plan', notes: 'over MCP' });
            expect(thing).to.include({ name: 'Holiday plan', notes: 'over MCP' });
            const things = await callOk(client, checker, 'list_things', { limit: 10 });
            expect(things.items.map((item: { id: string }) => item.id)).to.deep.equal([thing.id]);

            const key = newKey();
            const job = await callOk(client, checker, 'create_job', { input: { prompt: 'summarise my things' }, idempotency_key: key });
            expect(job.status).to.be.oneOf(['queued', 'running', 'succeeded']);
            const finished = await pollJobOverMcp(client, checker, job.id);
            expect(finished.status).to.equal('succeeded');
            const retried = await callOk(client, checker, 'create_job', { input: { prompt: 'summarise my things' }, idempotency_key: key });
            expect(retried.id).to.equal(job.id);
            const jobs = await callOk(client, checker, 'list_jobs', {});
            expect(jobs.items.map((item: { id: string }) => item.id)).to.deep.equal([job.id]);
            expect((await callOk(client, checker, 'get_me')).usage).to.deep.equal({
              jobs_charged: 1,
              credits_spent: 1,
              credits_refunded: 0,
            });

            const rest = await connector.call('GET', `/v1/jobs/${job.id}`, { token });
            expect(rest.status, rest.text).to.equal(200);
            expect(rest.body).to.deep.equal(finished);
          });

          it('a key used for the placeholder job over REST and then over MCP with the same input is the same job, charged once', async () => {
            const subjectToken = await connector.link(newSubject());
            const own = await connectMcp(mcpUrl, subjectToken, revision);
            try {
              const key = newKey();
              const rest = await submitPrompt(connector, subjectToken, 'both ways', { key });
              expect(rest.status, rest.text).to.equal(202);
              const viaMcp = await callOk(own, checker, 'create_job', { input: { prompt: 'both ways' }, idempotency_key: key });
              expect(viaMcp.id).to.equal(rest.body.id);
              expect((await callOk(own, checker, 'get_me')).usage).to.deep.equal({
                jobs_charged: 1,
                credits_spent: 1,
                credits_refunded: 0,
              });
            } finally {
              await own.close();
            }
          });

          it('domain errors of the placeholder tools are isError results with the problem detail: an unknown job, a key reused with other input', async () => {
            const missing = await client.callTool({ name: 'get_job', arguments: { id: 'job_doesnotexist' } });
            expect(missing.isError).to.equal(true);
            expect(missing.content).to.deep.equal([{ type: 'text', text: 'No job with this id.' }]);

            const key = newKey();
            await callOk(client, checker, 'create_job', { input: { prompt: 'first' }, idempotency_key: key });
            const conflict = await client.callTool({
              name: 'create_job',
              arguments: { input: { prompt: 'second' }, idempotency_key: key },
            });
            expect(conflict.isError).to.equal(true);
            expect(JSON.stringify(conflict.content)).to.match(/idempotency key/i);
          });

          it('the placeholder tools refuse arguments that break their own schemas (an unknown argument, limit 0, an empty name, no key, a malformed cursor, no id) with a JSON-RPC invalid-params error', async () => {
            const invalid: Record<string, Record<string, unknown>> = {
              get_me: { unexpected: true },
              list_things: { limit: 0 },
              create_thing: { name: '' },
              create_job: { input: { prompt: 'no key' } },
              list_jobs: { cursor: 'not a cursor!' },
              get_job: {},
            };
            for (const [name, args] of Object.entries(invalid)) {
              const error = await rpcError(client.callTool({ name, arguments: args }));
              expect(error.code, `${name}: ${error.message}`).to.equal(INVALID_PARAMS);
            }
          });

          it('the placeholder get_me from two subjects, called in turn and at once, answers each caller with their own identity', async () => {
            const otherSubject = newSubject();
            const other = await connectMcp(mcpUrl, await connector.link(otherSubject), revision);
            try {
              for (let round = 0; round < 3; round++) {
                expect((await callOk(client, checker, 'get_me')).subject).to.equal(subject);
                expect((await callOk(other, checker, 'get_me')).subject).to.equal(otherSubject);
              }
              const callers = Array.from({ length: 10 }, (_, i) =>
                i % 2 === 0 ? { mcp: client, subject } : { mcp: other, subject: otherSubject },
              );
              const answers = await Promise.all(callers.map(({ mcp }) => callOk(mcp, checker, 'get_me')));
              expect(answers.map((me) => me.subject)).to.deep.equal(callers.map((caller) => caller.subject));
            } finally {
              await other.close();
            }
          });

          it('another subject’s job is an unknown job to the placeholder get_job, exactly as on REST', async () => {
            const key = newKey();
            const mine = await callOk(client, checker, 'create_job', { input: { prompt: 'private' }, idempotency_key: key });
            const otherToken = await connector.link(newSubject());
            const other = await connectMcp(mcpUrl, otherToken, revision);
            try {
              const result = await other.callTool({ name: 'get_job', arguments: { id: mine.id } });
              expect(result.isError).to.equal(true);
            } finally {
              await other.close();
            }
          });
        });
      }

      describe('the placeholder create_job as a task', () => {
        it('a 2025-11-25 task-augmented create_job answers a task whose id is the job id; tasks/get and tasks/result read the job', async () => {
          const token = await connector.link(newSubject());
          const client = await connectMcp(mcpUrl, token, '2025-11-25');
          try {
            const created = await legacyTasks.create(client, 'create_job', { input: { prompt: 'as a task' }, idempotency_key: newKey() });
            const taskId = created.task.taskId;
            expect(taskId).to.match(/^job_/);
            const rest = await connector.call('GET', `/v1/jobs/${taskId}`, { token });
            expect(rest.status).to.equal(200);
            await waitFor(async () => (await legacyTasks.get(client, taskId)).status === 'completed', { what: 'the task to complete' });
            const result = await legacyTasks.result(client, taskId);
            expect(result.isError ?? false).to.equal(false);
            expect(result.structuredContent).to.include({ id: taskId, status: 'succeeded' });
          } finally {
            await client.close();
          }
        });

        it('a 2026-07-28 client that opts into the tasks extension gets a task; tasks/get inlines the final result', async () => {
          const token = await connector.link(newSubject());
          const client = await connectMcp(mcpUrl, token, '2026-07-28', { tasks: true });
          try {
            const created = await modernTasks.create(mcpUrl, token, 'create_job', {
              input: { prompt: 'modern task' },
              idempotency_key: newKey(),
            });
            expect(created.resultType).to.equal('task');
            expect(created.taskId).to.match(/^job_/);
            const done = await waitFor(
              async () => {
                const task = await modernTasks.get(client, created.taskId);
                return task.status === 'completed' ? task : undefined;
              },
              { what: 'the task to complete' },
            );
            expect(done.result!.structuredContent).to.include({ id: created.taskId, status: 'succeeded' });
            const rest = await connector.call('GET', `/v1/jobs/${created.taskId}`, { token });
            expect(rest.body).to.deep.equal(done.result!.structuredContent);
          } finally {
            await client.close();
          }
        });

        it('tasks/get for another subject’s placeholder job is an unknown task', async () => {
          const owner = await connector.link(newSubject());
          const ownerClient = await connectMcp(mcpUrl, owner, '2025-11-25');
          const otherClient = await connectMcp(mcpUrl, await connector.link(newSubject()), '2025-11-25');
          try {
            const created = await legacyTasks.create(ownerClient, 'create_job', { input: { prompt: 'mine' }, idempotency_key: newKey() });
            const error = await rpcError(legacyTasks.get(otherClient, created.task.taskId));
            expect(error.code).to.equal(INVALID_PARAMS);
          } finally {
            await ownerClient.close();
            await otherClient.close();
          }
        });
      });

      it('counts calls of the placeholder tools get_me and get_job in connector_mcp_tool_calls_total by tool and outcome', async () => {
        const client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2026-07-28');
        try {
          const scrape = async () => parseExposition(await (await fetch(connector.metricsUrl)).text());
          const before = await scrape();
          await client.callTool({ name: 'get_me', arguments: {} });
          await client.callTool({ name: 'get_job', arguments: { id: 'job_missing' } });
          const after = await scrape();
          const delta = (labels: Record<string, string>) =>
            sumOf(after, 'connector_mcp_tool_calls_total', labels) - sumOf(before, 'connector_mcp_tool_calls_total', labels);
          expect(delta({ tool: 'get_me', outcome: 'ok' })).to.equal(1);
          expect(delta({ tool: 'get_job', outcome: 'error' })).to.equal(1);
          expect(sumOf(after, 'connector_http_requests_total', { method: 'POST', route: '/mcp', status: '200' })).to.be.greaterThan(0);
        } finally {
          await client.close();
        }
      });
    });
  });

  describe(`MCP tools of ${EXTENDED_REGISTRY.name} over POST /mcp (${backend} backend)`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;

    before(async () => {
      connector = await startConnector(backend, {}, { operations: EXTENDED_REGISTRY.operations });
    });
    after(async () => connector?.close());

    registryToolTests(EXTENDED_REGISTRY.operations, () => connector);
  });
}
