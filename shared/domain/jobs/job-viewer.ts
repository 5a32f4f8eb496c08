import type { Job } from './job';
import {
  clip,
  type JobView,
  type JobViews,
  LISTED_ERROR_CHARS,
  LISTED_PROGRESS_CHARS,
  READ_ERROR_CHARS,
  summarise,
  type ViewPart,
} from './job-views';
import type { JobResult, PaidJob } from './processor';

/** The views of every paid job, by operation: applies them to the jobs the service hands out. */
export class JobViewer {
  private readonly views: ReadonlyMap<string, JobViews<unknown, JobResult>>;

  constructor(jobs: readonly PaidJob[] = []) {
    this.views = new Map(jobs.flatMap((job) => (job.views ? [[job.operationId, job.views as JobViews<unknown, JobResult>]] : [])));
  }

  /** The job as one job is shown: its operation's read view, else the whole input and result; a long error cut. */
  read(job: Job): Job {
    const shown = applied(this.views.get(job.operation)?.read, job);
    if (!shown.error || shown.error.message.length <= READ_ERROR_CHARS) return shown;
    return { ...shown, error: { message: clip(shown.error.message, READ_ERROR_CHARS) } };
  }

  /** The job as a webhook event carries it: its operation's event view, else as it is read. */
  event(job: Job): Job {
    const view = this.views.get(job.operation)?.event;
    return view ? applied(view, job) : this.read(job);
  }

  /** The job as a list shows it: its operation's list view, else the default summaries; long messages cut. */
  list(job: Job): Job {
    const view = this.views.get(job.operation)?.list;
    return {
      ...job,
      input: partOf(view?.input, job.input) ?? summarise(job.input),
      result: job.result && (partOf(view?.result, job.result) ?? summarise(job.result)),
      progress: job.progress && { ...job.progress, message: job.progress.message && clip(job.progress.message, LISTED_PROGRESS_CHARS) },
      // Up to 16 KiB each: a page of 100 would pass 100,000 characters, so a list leaves it to getJob.
      partial: null,
      error: job.error && { message: clip(job.error.message, LISTED_ERROR_CHARS) },
    };
  }
}

/** The job with a view's parts applied; parts it does not declare stay whole. */
function applied(view: JobView<unknown, JobResult> | undefined, job: Job): Job {
  if (!view) return job;
  return {
    ...job,
    input: partOf(view.input, job.input) ?? job.input,
    result: job.result && (partOf(view.result, job.result) ?? job.result),
  };
}

function partOf(part: ViewPart<unknown> | undefined, from: unknown): Record<string, unknown> | undefined {
  return part ? (part.show(from) as Record<string, unknown>) : undefined;
}
