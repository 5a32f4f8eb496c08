import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { JobError } from '../../shared/domain/jobs/job-error';
import { timeoutMessage } from '../../shared/domain/jobs/job-runner';
import { PLACEHOLDER_FAILURE } from '../../shared/domain/processors/placeholder-processor';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { connectMcp, modernTasks } from '../support/mcp-client';
import { waitFor } from '../testkit/wait-for';

/** The paid operation under test: the registry's first operation with a job, whatever it is called. */
const PAID = OPERATIONS.find((operation) => operation.job)!;
const TIMEOUT_MS = 1500;
const OWN_ATTEMPTS = 2;
/** The prompt that makes the processor ignore everything but its signal. */
const HANG = 'hang until stopped';
/** The prompt that makes the processor report progress, then fail at once (not retried). */
const REPORT_THEN_FAIL = 'report, then fail';
/** The safe message of {@link REPORT_THEN_FAIL}. */
const STOPPED_MIDWAY = 'Stopped at 40 %.';

/**
 * The registry with the paid operation given its own timeout and attempts (the global JOB_ATTEMPTS is set
 * higher below), and a processor that, for {@link HANG}, waits for its signal and counts the signals fired;
 * any other prompt runs the operation's own processor.
 */
function withOwnSettings(signalsFired: { count: number; reasons: unknown[] }): Operation[] {
  return OPERATIONS.map((operation) =>
    operation !== PAID
      ? operation
      : {
          ...operation,
          job: {
            ...operation.job!,
            timeoutMs: TIMEOUT_MS,
            attempts: OWN_ATTEMPTS,
            processor: (own) => {
              const normal = operation.job!.processor(own);
              return async (input, context) => {
                if (input.prompt === REPORT_THEN_FAIL) {
                  // Reported within the coalescing interval of the end: only a flush before the ending stores it.
                  context.progress(40, 'four tenths');
                  throw new JobError(STOPPED_MIDWAY, { retryable: false });
                }
                if (input.prompt !== HANG) return normal(input, context);
                return new Promise((_, reject) =>
                  context.signal.addEventListener('abort', () => {
                    signalsFired.count++;
                    signalsFired.reasons.push(context.signal.reason);
                    reject(new Error('stopped by the signal'));
                  }),
                );
              };
            },
          },
        },
  );
}

for (const backend of BACKENDS) {
  describe(`a paid job's progress, timeout and attempts [${backend}]`, function () {
    this.timeout(60_000);
    let c: ConnectorUnderTest;
    const signalsFired = { count: 0, reasons: [] as unknown[] };

    before(async () => {
      // A simulated job of 1 s in ten steps: long enough to be seen running, shorter than the timeout.
      c = await startConnector(backend, { PLACEHOLDER_JOB_MS: '1000', JOB_ATTEMPTS: '4' }, { operations: withOwnSettings(signalsFired) });
    });
    after(async () => c.close());

    it('a new job shows no progress beyond 0; while it runs its progress rises through intermediate steps, and it ends succeeded at 100 %', async () => {
      const token = await c.link(newSubject());
      const created = await submitPrompt(c, token, 'watch me work', { operationId: PAID.operationId });
      expect(created.status).to.equal(202);
      // In memory the job may already have started (and reported 0) when the 202 is written.
      expect(created.body.progress?.percent ?? 0).to.equal(0);
      const seen: number[] = [];
      const done = await pollJob(
        c,
        token,
        created.body.id,
        (job) => {
          if (job.status === 'running' && job.progress) {
            expect(job.progress.message).to.be.a('string');
            expect(Date.parse(job.progress.updated_at)).to.be.at.least(Date.parse(job.created_at));
            if (seen.at(-1) !== job.progress.percent) seen.push(job.progress.percent);
          }
          return job.status === 'succeeded';
        },
        { timeoutMs: 10_000, intervalMs: 20 },
      );
      expect(seen.length, `distinct percentages seen while running: ${seen}`).to.be.at.least(2);
      expect(seen, 'never going back').to.deep.equal([...seen].sort((a, b) => a - b));
      expect(
        seen.some((percent) => percent > 0 && percent < 100),
        `an intermediate step among ${seen}`,
      ).to.equal(true);
      expect(done.progress.percent).to.equal(100);
    });

    it(`a job running past its operation's ${TIMEOUT_MS} ms timeout has its signal fired and fails after its own ${OWN_ATTEMPTS} attempts with the safe timeout message`, async () => {
      const token = await c.link(newSubject());
      const before = signalsFired.count;
      const created = await submitPrompt(c, token, HANG, { operationId: PAID.operationId });
      const done = await pollJob(c, token, created.body.id, inStatus('failed'), 20_000);
      expect(done.error).to.deep.equal({ message: timeoutMessage(TIMEOUT_MS) });
      expect(done.error.message).to.equal('The job took longer than 1.5 s.');
      expect(done.attempts, 'the operation’s attempts, not JOB_ATTEMPTS (4)').to.equal(OWN_ATTEMPTS);
      expect(signalsFired.count - before, 'one signal per attempt').to.equal(OWN_ATTEMPTS);
      expect(signalsFired.reasons.at(-1)).to.be.instanceOf(Error);
      // Stopped by its own timeout, the attempt is an expected failure, not an unexpected error to log.
      expect(c.logs.text()).to.not.include('job attempt threw');
    });

    it('a prompt starting with !fail fails after one attempt with the placeholder’s safe message', async () => {
      const token = await c.link(newSubject());
      const created = await submitPrompt(c, token, '!fail on purpose', { operationId: PAID.operationId });
      const done = await pollJob(c, token, created.body.id, inStatus('failed'), 10_000);
      expect(done.error).to.deep.equal({ message: PLACEHOLDER_FAILURE });
      expect(done.attempts).to.equal(1);
    });

    it('a job that reports progress and then fails keeps its last progress on the failed job', async () => {
      const token = await c.link(newSubject());
      const created = await submitPrompt(c, token, REPORT_THEN_FAIL, { operationId: PAID.operationId });
      const done = await pollJob(c, token, created.body.id, inStatus('failed'), 10_000);
      expect(done.error).to.deep.equal({ message: STOPPED_MIDWAY });
      expect(done.progress).to.include({ percent: 40, message: 'four tenths' });
      expect(Date.parse(done.progress.updated_at)).to.be.at.most(Date.parse(done.finished_at));
    });

    it('over MCP, a running task’s statusMessage carries the job’s progress percentage', async () => {
      const token = await c.link(newSubject());
      const mcpUrl = `${c.baseUrl}/mcp`;
      const client = await connectMcp(mcpUrl, token, '2026-07-28', { tasks: true });
      try {
        const created = await modernTasks.create(mcpUrl, token, 'create_job', {
          input: { prompt: 'task progress' },
          idempotency_key: newKey(),
        });
        const task = await waitFor(
          async () => {
            const current = await modernTasks.get(client, created.taskId);
            return current.status === 'working' && /\d+ %/.test(String(current.statusMessage)) ? current : undefined;
          },
          { what: 'a working task with progress', intervalMs: 20 },
        );
        expect(task.statusMessage).to.match(/^Job status: running, \d{1,3} %(: .+|\.)$/);
      } finally {
        await client.close();
      }
    });
  });
}
