/** A job's progress as stored and shown (`Job.progress`). */
export interface JobProgress {
  percent: number;
  message: string | null;
  updated_at: string;
}

/** A partial result as stored and shown: a JSON object, its processor's latest (`shared/domain/jobs/partial-result.ts`). */
export type PartialResult = Record<string, unknown>;

/** A report as an attempt writes it: its progress and, once the processor published one, its latest partial result. */
export interface AttemptReport extends JobProgress {
  partial?: PartialResult;
}

/** The longest progress message kept. */
export const MAX_PROGRESS_MESSAGE = 200;

/** Writes to the store at most this often per job; the rest are coalesced into the latest value. */
export const PROGRESS_WRITE_INTERVAL_MS = 250;

/** Coalesces a processor's progress reports into a few ordered writes. */
export interface ProgressReporter {
  /** Validates and records a report; returns at once (the write happens in the background). */
  report(percent: number, message?: string): void;
  /**
   * Records a partial result (already checked) with the latest progress, coalesced like a report; a later
   * report keeps it, so what is written always holds the latest of both.
   */
  publish(partial: PartialResult): void;
  /** Writes the latest pending report now, if any, and resolves once every write has ended. */
  settle(): Promise<void>;
  /**
   * Settles, then drops every later report: an attempt that has ended (a processor that ignored its signal
   * may still report) must not touch the job its successor or its final state now owns.
   */
  close(): Promise<void>;
}

/**
 * A reporter over `write`. At most one write is in flight, each starting only after the previous ended, so
 * the store sees reports in the order they were made; a report arriving within `intervalMs` of the last
 * write (or of the reporter's creation) waits and is replaced by any later one, so a processor reporting in a tight loop costs a few writes
 * a second, not one per call. A failed write is dropped (progress is advisory) and reported to `onError`.
 */
export function createProgressReporter(
  write: (report: AttemptReport) => Promise<void>,
  {
    intervalMs = PROGRESS_WRITE_INTERVAL_MS,
    now = Date.now,
    onError = () => {},
  }: {
    intervalMs?: number;
    now?: () => number;
    onError?: (error: unknown) => void;
  } = {},
): ProgressReporter {
  let pending: AttemptReport | undefined;
  // The latest report made (written or not): a partial result keeps its progress, a report keeps its partial.
  let latest: AttemptReport | undefined;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  // The first write also waits for an interval from the start: a job shorter than that writes only its
  // last report (when it settles), not its first and its last.
  let lastWriteAt = now();
  let closed = false;

  const start = (): void => {
    if (inFlight !== undefined || !pending) return;
    clearTimeout(timer);
    timer = undefined;
    const value = pending;
    pending = undefined;
    lastWriteAt = now();
    inFlight = write(value)
      .catch(onError)
      .finally(() => {
        inFlight = undefined;
        schedule();
      });
  };
  const schedule = (): void => {
    if (!pending || inFlight !== undefined || timer) return;
    const wait = lastWriteAt + intervalMs - now();
    if (wait <= 0) return start();
    timer = setTimeout(() => {
      timer = undefined;
      start();
    }, wait);
    timer.unref();
  };

  return {
    report(percent, message) {
      if (!Number.isInteger(percent) || percent < 0 || percent > 100) throw new RangeError('progress must be a whole number from 0 to 100');
      if (message !== undefined && (typeof message !== 'string' || message.length > MAX_PROGRESS_MESSAGE)) {
        throw new RangeError(`a progress message must be a string of at most ${MAX_PROGRESS_MESSAGE} characters`);
      }
      if (closed) return;
      const partial = latest?.partial;
      record({ percent, message: message ?? null, updated_at: new Date(now()).toISOString(), ...(partial ? { partial } : {}) });
    },
    publish(partial) {
      if (closed) return;
      record({ percent: latest?.percent ?? 0, message: latest?.message ?? null, updated_at: new Date(now()).toISOString(), partial });
    },
    settle,
    async close() {
      await settle();
      closed = true;
    },
  };

  function record(report: AttemptReport): void {
    latest = report;
    pending = report;
    schedule();
  }

  async function settle(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    while (inFlight !== undefined || pending !== undefined) {
      if (inFlight === undefined) start();
      else await inFlight;
    }
  }
}
