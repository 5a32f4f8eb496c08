import { readFileSync } from 'node:fs';

/**
 * What one worker process's log says about its jobs. The worker writes `job started` and `job succeeded`
 * (debug) from its processor wrapper: `job succeeded` right after the processor returned a result, before
 * BullMQ records the completion, so a job whose work finished twice shows twice even when BullMQ refuses the
 * second record (a lost lock). Log lines are written synchronously, one `write` each, so none is lost at
 * exit (`test/ops/logs.test.ts`).
 */
export interface WorkerJobLog {
  /** Every `job succeeded`, in order (a job id may appear more than once: that is what is looked for). */
  succeeded: string[];
  /** Jobs started and not yet succeeded when the `shutting down` line (SIGTERM) was written. */
  runningAtSignal: string[];
  /** Of those, the ones this process finished after the signal. */
  finishedAfterSignal: string[];
  /** The ids the worker logged as handed back to the queue when its grace ran out. */
  handedBack: string[];
  /** Whether the `shutting down` line is there at all. */
  signalled: boolean;
}

type LogEntry = { msg?: string; job_id?: string; handed_back?: string[] };

/** Reads a worker's JSON log file (other lines, such as a crash's stack, are skipped). */
export function readWorkerLog(file: string): WorkerJobLog {
  const log: WorkerJobLog = { succeeded: [], runningAtSignal: [], finishedAfterSignal: [], handedBack: [], signalled: false };
  const running = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('{')) record(log, running, JSON.parse(line) as LogEntry);
  }
  return log;
}

/** Folds one log line into `log`; `running` holds the jobs started and not yet succeeded. */
function record(log: WorkerJobLog, running: Set<string>, entry: LogEntry): void {
  if (entry.msg === 'shutting down' && !log.signalled) {
    log.signalled = true;
    log.runningAtSignal = [...running];
  } else if (entry.msg === 'job started' && entry.job_id) {
    running.add(entry.job_id);
  } else if (entry.msg === 'job succeeded' && entry.job_id) {
    recordSuccess(log, running, entry.job_id);
  } else if (Array.isArray(entry.handed_back)) {
    log.handedBack.push(...entry.handed_back);
  }
}

function recordSuccess(log: WorkerJobLog, running: Set<string>, jobId: string): void {
  running.delete(jobId);
  log.succeeded.push(jobId);
  if (log.signalled && log.runningAtSignal.includes(jobId)) log.finishedAfterSignal.push(jobId);
}
