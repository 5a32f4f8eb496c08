import { setTimeout as delay } from 'node:timers/promises';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { isTerminal, JOB_POLL_SECONDS, type Job } from '../../shared/domain/jobs/job';
import { JobFinishedError, NotFoundError } from '../../shared/platform/errors/problems';
import { callerOf, type McpCaller, type McpDependencies } from './mcp-context';
import { taskProgressNotifier } from './task-progress';
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

/** The error for a cancel of a task already in a final status. */
function finished(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'The task has already finished or been cancelled.');
}

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
 * `isError` (its failure is not a JSON-RPC error), so on 2026-07-28 the task is `completed`. A task is
 * `cancelled` from the moment its cancel is asked, on both revisions, whatever the job then does: the
 * specification has a cancelled task stay cancelled even if the work completes (the job itself may still end
 * succeeded, and `statusMessage` and `get_job` say so).
 */
function taskOf(job: Job, ttlMs: number, modern: boolean): Record<string, unknown> {
  const task: Record<string, unknown> = {
    taskId: job.id,
    status: taskStatus(job, modern),
    statusMessage: statusMessageOf(job),
    createdAt: job.created_at,
    lastUpdatedAt: job.finished_at ?? job.cancel_requested_at ?? job.started_at ?? job.created_at,
  };
  return modern
    ? { ...task, ttlMs, pollIntervalMs: JOB_POLL_SECONDS * 1000 }
    : { ...task, ttl: ttlMs, pollInterval: JOB_POLL_SECONDS * 1000 };
}

type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

function taskStatus(job: Job, modern: boolean): TaskStatus {
  if (job.status === 'canceled' || job.cancel_requested_at !== null) return 'cancelled';
  if (!isTerminal(job.status)) return 'working';
  return job.status === 'failed' && !modern ? 'failed' : 'completed';
}

/** True once the task will not change status again (its job may still be stopping). */
function taskIsFinal(job: Job): boolean {
  return isTerminal(job.status) || job.cancel_requested_at !== null;
}

/** The job's status, with its progress while it is not final (e.g. "Job status: running, 40 %: Step 4 of 10."). */
function statusMessageOf(job: Job): string {
  const { progress } = job;
  if (job.cancel_requested_at !== null && !isTerminal(job.status)) return `Cancel requested: the job is stopping (${job.status}).`;
  if (job.cancel_requested_at !== null && job.status !== 'canceled') return `Cancel requested, but the job had already ${job.status}.`;
  if (!progress || isTerminal(job.status)) return `Job status: ${job.status}.`;
  return `Job status: ${job.status}, ${progress.percent} %${progress.message ? `: ${progress.message}` : '.'}`;
}

/** The final tool result of a finished job: the job itself, flagged as an error when it failed or was canceled. */
function finalResult(job: Job) {
  return jsonResult(job, job.status === 'failed' || job.status === 'canceled' || job.cancel_requested_at !== null);
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
  // A request with a progress token is told the job's progress and partial result first (task-progress.ts).
  server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
    const job = await load(callerOf(ctx), taskId);
    await taskProgressNotifier(ctx)?.(job);
    const task = taskOf(job, deps.taskTtlMs, modern);
    return (modern && task.status === 'completed' ? { ...task, result: finalResult(job) } : task) as never;
  });
  // The same cancel as `cancel_job` (a queued job ends at once, a running one is asked to stop); the task is
  // cancelled before the answer, as the specification requires, and a task already in a final status (a
  // finished job, or one whose cancel was already asked) cannot be cancelled again: invalid params.
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
    const caller = callerOf(ctx);
    if (taskIsFinal(await load(caller, taskId))) throw finished();
    try {
      const { job } = await deps.services.jobs.cancel(caller.principal.subject, taskId);
      return taskOf(job, deps.taskTtlMs, modern) as never;
    } catch (error) {
      if (error instanceof NotFoundError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Unknown task id.');
      if (error instanceof JobFinishedError) throw finished();
      throw error;
    }
  });
  if (modern) return;
  server.setRequestHandler('tasks/result', { params: TaskParams }, async ({ taskId }, ctx) => {
    const caller = callerOf(ctx);
    const deadline = Date.now() + RESULT_WAIT_MS;
    const notify = taskProgressNotifier(ctx);
    let job = await load(caller, taskId);
    while (!taskIsFinal(job) && Date.now() < deadline && !ctx.mcpReq.signal.aborted) {
      await notify?.(job);
      await delay(RESULT_POLL_MS);
      job = await load(caller, taskId);
    }
    if (!taskIsFinal(job)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'The task is still working; poll tasks/get.');
    return finalResult(job) as never;
  });
}
