import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import * as z from 'zod/v4';
import { PARTIAL_META_KEY } from '../../api/mcp/task-progress';
import { EXTENDED_REGISTRY, PARTIAL_TAIL } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { connectMcp, legacyTasks, modernTasks } from '../support/mcp-client';
import { waitFor } from '../testkit/wait-for';

/** A progress notification as the SDK client hands it to `onprogress`. */
type Progress = { progress: number; total?: number; message?: string; _meta?: Record<string, any> };

const AnyResult = z.object({}).passthrough();

/** 30 chunks of 100 distinct letters: a partial's tail says which chunks are done. */
const TEXT = Array.from({ length: 30 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(100)).join('');

/** Checks what a run of notifications carried: the job's partial results, in order, each true to the text. */
function expectPartials(seen: Progress[]): number[] {
  const partials = seen.map((notice) => notice._meta?.[PARTIAL_META_KEY]).filter((partial) => partial !== undefined);
  expect(partials.length, JSON.stringify(seen.slice(0, 3))).to.be.at.least(1);
  for (const partial of partials) {
    expect(partial.chunks).to.equal(30);
    expect(partial.translated_tail).to.equal(TEXT.slice(0, partial.chunks_done * 100).slice(-PARTIAL_TAIL));
  }
  const values = seen.map((notice) => notice.progress);
  for (let i = 1; i < values.length; i++) expect(values[i], 'progress increases').to.be.above(values[i - 1]);
  for (const notice of seen) expect(notice.total).to.equal(100);
  return partials.map((partial) => partial.chunks_done);
}

/*
 * The template trial's translation publishes the chunks translated so far; an MCP client waiting on its task
 * receives them as progress notifications (the partial in `_meta`), on both protocol revisions, and the final
 * result replaces them.
 */
describe('partial results over MCP: progress notifications on a task', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  let mcpUrl: string;
  const input = { text: TEXT, target_language: 'de' };

  before(async () => {
    connector = await startConnector(
      'memory',
      { TRANSLATE_CHUNK_CHARACTERS: '100', TRANSLATE_CHUNK_MS: '60' },
      { operations: EXTENDED_REGISTRY.operations },
    );
    mcpUrl = `${connector.baseUrl}/mcp`;
  });
  after(async () => connector?.close());

  it('2025-11-25: tasks/result with a progress token streams each new partial result while it waits, then answers the job with its result and no partial', async () => {
    const client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2025-11-25');
    try {
      const created = await legacyTasks.create(client, 'translate_document', { input, idempotency_key: newKey() });
      const seen: Progress[] = [];
      const result = await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } } as never, AnyResult, {
        onprogress: (notice: Progress) => seen.push(notice),
        timeout: 30_000,
      });
      const done = expectPartials(seen);
      expect(done.length, 'several chunks seen as they came').to.be.at.least(2);
      expect(done.at(-1)).to.be.above(done[0]);
      expect((result as Record<string, any>).structuredContent).to.deep.include({ status: 'succeeded', partial: null });
      expect((result as Record<string, any>).structuredContent.result.translated).to.equal(TEXT);
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: each tasks/get with a progress token is told the job’s latest partial result before the task, and the completed task carries the result with no partial', async () => {
    const token = await connector.link(newSubject());
    const client = await connectMcp(mcpUrl, token, '2026-07-28', { tasks: true });
    try {
      const created = await modernTasks.create(mcpUrl, token, 'translate_document', { input, idempotency_key: newKey() });
      const seen: Progress[] = [];
      const getWithProgress = async () => {
        const notices: Progress[] = [];
        const task = await client.request({ method: 'tasks/get', params: { taskId: created.taskId } } as never, AnyResult, {
          onprogress: (notice: Progress) => notices.push(notice),
        });
        expect(notices.length, 'one notification per tasks/get at most').to.be.at.most(1);
        seen.push(...notices);
        return task as Record<string, any>;
      };
      const done = await waitFor(
        async () => {
          const task = await getWithProgress();
          return task.status === 'completed' ? task : undefined;
        },
        { what: 'the task to complete', timeoutMs: 30_000 },
      );
      const partials = seen.map((notice) => notice._meta?.[PARTIAL_META_KEY]).filter(Boolean);
      expect(partials.length).to.be.at.least(2);
      for (const partial of partials)
        expect(partial.translated_tail).to.equal(TEXT.slice(0, partial.chunks_done * 100).slice(-PARTIAL_TAIL));
      expect(partials.at(-1).chunks_done).to.be.above(partials[0].chunks_done);
      expect(done.result.structuredContent).to.deep.include({ status: 'succeeded', partial: null });
    } finally {
      await client.close();
    }
  });

  it('a task request without a progress token is sent no notification; get_job shows the partial while the job runs', async () => {
    const client: Client = await connectMcp(mcpUrl, await connector.link(newSubject()), '2025-11-25');
    try {
      const notices: unknown[] = [];
      client.setNotificationHandler('notifications/progress', (notice) => void notices.push(notice));
      const created = await legacyTasks.create(client, 'translate_document', { input, idempotency_key: newKey() });
      const running = await waitFor(
        async () => {
          const job = (await client.callTool({ name: 'get_job', arguments: { id: created.task.taskId } })).structuredContent as Record<
            string,
            any
          >;
          await legacyTasks.get(client, created.task.taskId);
          return job.partial ? job : undefined;
        },
        { what: 'get_job to show a partial result' },
      );
      expect(running.status).to.equal('running');
      expect(running.partial.translated_tail).to.equal(TEXT.slice(0, running.partial.chunks_done * 100).slice(-PARTIAL_TAIL));
      expect(notices).to.deep.equal([]);
    } finally {
      await client.close();
    }
  });
});
