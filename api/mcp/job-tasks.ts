import { setTimeout as delay } from 'node:timers/promises';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { JobFinishedError } from '../../shared/platform/errors/job-finished-error';
import { NotFoundError } from '../../shared/platform/errors/not-found-error';
import { isTerminal, JOB_POLL_SECONDS, type Job } from '../../shared/domain/jobs/job';
import { callerOf, type McpCaller, type McpDependencies } from './mcp-context';
import { jsonResult } from './tool-calls';

/** The extension a 2026-07-28 client names in its per-request capabilities to accept task answers. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * What a 2025-11-25 server declares: task-augmented `tools/call`, answered by `tasks/get` and `tasks/result`,
 * and `tasks/cancel`.
 */
export const TASK_CAPABILITIES = { tasks: { cancel: {}, requests: { tools: { call: {} } } } };

/** How long `tasks/result` (2025-11-25, which blocks until the task ends) waits before telling the client to poll. */
const RESULT_WAIT_MS = 25_000;
const RESULT_POLL_MS = 250;

const TaskParams = z.object({ taskId: z.string().min(1).max(128) });

/** True when this `tools/call` may be answered with a task: the client opted in, per its revision. */
export function taskRequested(params: Record<string, unknown>, envelope: object | undefined, modern: boolean): boolean {
  if (!modern) return params.task !== undefined;
  // 2026-07-28 carries capabilities per request, in the `_meta` envelope the SDK lifts off the params.
  const capabilities = (envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ];
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * A job seen as a task. The job is the durable record (in Redis on every replica), so the task id is the
 * job id and nothing about the task is kept anywhere else. A job that failed is a tool result with
 * `isError` (its failure is not a JSON-RPC error), so on 2026-07-28 the task is `completed`; a canceled job
 * is a `cancelled` task on both revisions.
 */
function taskOf(job: Job, ttlMs: number, modern: boolean): Record<string, unknown> {
  const status = !isTerminal(job.status)
    ? 'working'
    : job.status === 'canceled'
      ? 'cancelled'
      : job.status === 'failed' && !modern
        ? 'failed'
        : 'completed';
  const task: Record<string, unknown> = {
    taskId: job.id,
    status,
    statusMessage: statusMessageOf(job),
    createdAt: job.created_at,
    lastUpdatedAt: job.finished_at ?? job.started_at ?? job.created_at,
  };
  return modern
    ? { ...task, ttlMs, pollIntervalMs: JOB_POLL_SECONDS * 1000 }
    : { ...task, ttl: ttlMs, pollInterval: JOB_POLL_SECONDS * 1000 };
}

/** The job's status, with its progress while it is not final (e.g. "Job status: running, 40 %: Step 4 of 10."). */
function statusMessageOf(job: Job): string {
  const { progress } = job;
  if (!progress || isTerminal(job.status)) return `Job status: ${job.status}.`;
  return `Job status: ${job.status}, ${progress.percent} %${progress.message ? `: ${progress.message}` : '.'}`;
}

/** The final tool result of a finished job: the job itself, flagged as an error when it failed or was canceled. */
function finalResult(job: Job) {
  return jsonResult(job, job.status === 'failed' || job.status === 'canceled');
}

/**
 * The answer to a task-augmented `tools/call` that accepted `job`. On 2025-11-25 the SDK only lets a
 * `tools/call` answer out as a tool result, so the task rides next to the queued job's ordinary content.
 */
export function toCreateTaskResult(job: Job, ttlMs: number, modern: boolean): Record<string, unknown> {
  return modern ? { resultType: 'task', ...taskOf(job, ttlMs, modern) } : { ...jsonResult(job), task: taskOf(job, ttlMs, modern) };
}

/**
 * Serves the task methods from the stored jobs, scoped to the caller's subject like `get_job` (another
 * subject's job is an unknown task). 2026-07-28 has `tasks/get` with the result inlined once terminal;
 * 2025-11-25 has `tasks/get` and `tasks/result`. The caller comes with each request's context.
 */
export function registerTaskHandlers(server: Server, deps: McpDependencies, modern: boolean): void {
  const load = async (caller: McpCaller, taskId: string): Promise<Job> => {
    try {
      return await deps.services.jobs.get(caller.principal.subject, taskId);
    } catch (error) {
      if (error instanceof NotFoundError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task id.');
      throw error;
    }
  };
  server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
    const job = await load(callerOf(ctx), taskId);
    const task = taskOf(job, deps.taskTtlMs, modern);
    return (modern && isTerminal(job.status) && job.status !== 'canceled' ? { ...task, result: finalResult(job) } : task) as never;
  });
  // The same cancel as `cancel_job` (a queued job ends at once, a running one is asked to stop and stays
  // `working` until it does); a finished task cannot be canceled, as the specification says.
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
    try {
      const { job } = await deps.services.jobs.cancel(callerOf(ctx).principal.subject, taskId);
      return taskOf(job, deps.taskTtlMs, modern) as never;
    } catch (error) {
      if (error instanceof NotFoundError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task id.');
      if (error instanceof JobFinishedError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The task has already finished.');
      throw error;
    }
  });
  if (modern) return;
  server.setRequestHandler('tasks/result', { params: TaskParams }, async ({ taskId }, ctx) => {
    const caller = callerOf(ctx);
    const deadline = Date.now() + RESULT_WAIT_MS;
    let job = await load(caller, taskId);
    while (!isTerminal(job.status) && Date.now() < deadline && !ctx.mcpReq.signal.aborted) {
      await delay(RESULT_POLL_MS);
      job = await load(caller, taskId);
    }
    if (!isTerminal(job.status)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'The task is still working; poll tasks/get.');
    return finalResult(job) as never;
  });
}
