/** One process replaced in a rotation. */
export interface Replacement {
  role: 'api' | 'worker';
  replica: number;
  rotation: number;
  /** When the new process was started (ms since the run began), how long it took to be ready, and to take its place. */
  startedMs: number;
  readyMs: number;
  inRotationMs: number;
  /** When the old one got SIGTERM (ms since the run began), its exit code and how long after the signal it exited. */
  signalledAt: number;
  exitCode?: number | string;
  exitMs?: number;
  /** Workers: the jobs running at SIGTERM, those it finished in its drain, those it handed back and another worker finished. */
  runningAtSignal?: string[];
  finishedInDrain?: string[];
  handedBack?: string[];
  finishedElsewhere?: string[];
}

/** Every accepted job's fate, counted per job id from the workers' logs and from the API. */
export interface JobAccount {
  /** Distinct jobs answered 202 to a fresh key. */
  accepted: number;
  /** Of those, the ones `GET /v1/jobs/{id}` shows `succeeded` at the end, and the others. */
  succeeded: number;
  notSucceeded: string[];
  /** Accepted jobs whose work finished exactly once, over all worker processes. */
  completedOnce: number;
  /** Jobs whose work finished more than once. */
  completedTwiceOrMore: string[];
  neverCompleted: string[];
  completedButNotAccepted: string[];
  /** Per subject: jobs accepted for it, and `usage.jobs_charged` from `GET /v1/me`. */
  chargedPerSubject: Array<{ subject: string; accepted: number; jobsCharged: number }>;
}

/** What a rolling restart measured. */
export interface RollingReport {
  settings: Record<string, number | string>;
  durationMs: number;
  replacements: Replacement[];
  traffic: {
    sent: number;
    statuses: Record<string, number>;
    byKind: Record<string, Record<string, number>>;
    errors: Record<string, number>;
    wrongAnswers: string[];
  };
  jobs: JobAccount;
}

/**
 * The pass criteria, each failure named: no request without an answer, no answer outside 2xx but 429, no
 * wrong answer; every process exited 0 after SIGTERM, an API no sooner than its delay; every accepted job
 * succeeded, its work finished exactly once, charged once; each job running in a stopped worker finished
 * there or was handed back and finished by another worker. Empty when everything held.
 */
export function judgeRollingRestart(report: RollingReport): string[] {
  return [
    ...trafficFailures(report.traffic),
    ...report.replacements.flatMap((r) => replacementFailures(r, Number(report.settings.delayMs))),
    ...jobFailures(report.jobs),
  ];
}

function trafficFailures(traffic: RollingReport['traffic']): string[] {
  const failures: string[] = [];
  const unexpected = Object.entries(traffic.statuses).filter(([status]) => !status.startsWith('2') && status !== '429');
  if (Object.keys(traffic.errors).length > 0) failures.push(`requests without an answer: ${JSON.stringify(traffic.errors)}`);
  if (unexpected.length > 0) failures.push(`answers outside 2xx and 429: ${JSON.stringify(Object.fromEntries(unexpected))}`);
  if (traffic.wrongAnswers.length > 0) failures.push(`wrong answers: ${traffic.wrongAnswers.slice(0, 5).join('; ')}`);
  return failures;
}

function replacementFailures(r: Replacement, delayMs: number): string[] {
  const failures: string[] = [];
  const what = `${r.role} ${r.replica} (rotation ${r.rotation})`;
  if (r.exitCode !== 0) failures.push(`${what} exited with ${String(r.exitCode)}`);
  if (r.role === 'api' && (r.exitMs ?? 0) < delayMs) failures.push(`${what} exited ${r.exitMs} ms after SIGTERM, inside its delay`);
  const unaccounted = (r.runningAtSignal ?? []).filter((id) => !r.finishedInDrain?.includes(id) && !r.finishedElsewhere?.includes(id));
  if (unaccounted.length > 0)
    failures.push(
      `${what}: jobs running at SIGTERM neither finished there nor handed back and finished elsewhere: ${unaccounted.join(', ')}`,
    );
  return failures;
}

function jobFailures(jobs: JobAccount): string[] {
  const failures: string[] = [];
  if (jobs.accepted === 0) failures.push('no job was accepted');
  if (jobs.notSucceeded.length > 0)
    failures.push(`accepted jobs not succeeded: ${jobs.notSucceeded.slice(0, 5).join(', ')} (${jobs.notSucceeded.length})`);
  if (jobs.completedTwiceOrMore.length > 0)
    failures.push(`jobs whose work finished more than once: ${jobs.completedTwiceOrMore.join(', ')}`);
  if (jobs.neverCompleted.length > 0)
    failures.push(
      `accepted jobs no worker logged as finished: ${jobs.neverCompleted.slice(0, 5).join(', ')} (${jobs.neverCompleted.length})`,
    );
  if (jobs.completedButNotAccepted.length > 0)
    failures.push(`finished jobs that were never accepted: ${jobs.completedButNotAccepted.join(', ')}`);
  for (const s of jobs.chargedPerSubject)
    if (s.jobsCharged !== s.accepted) failures.push(`${s.subject}: ${s.jobsCharged} jobs charged for ${s.accepted} accepted`);
  return failures;
}

/** A few lines a person reads: the counts the pass criteria are about. */
export function formatRollingReport(report: RollingReport): string {
  const { traffic, jobs } = report;
  const workers = report.replacements.filter((r) => r.role === 'worker');
  const sum = (pick: (r: (typeof workers)[number]) => string[] | undefined) => workers.reduce((n, r) => n + (pick(r)?.length ?? 0), 0);
  const apiExits = report.replacements.filter((r) => r.role === 'api').map((r) => r.exitMs);
  return [
    `replacements: ${report.replacements.length} (${report.replacements.length - workers.length} APIs, ${workers.length} workers) in ${report.settings.rotations} rotation(s), ${Math.round(report.durationMs / 1000)} s`,
    `requests: ${traffic.sent}; statuses ${JSON.stringify(traffic.statuses)}; without an answer ${JSON.stringify(traffic.errors)}; wrong answers ${traffic.wrongAnswers.length}`,
    `by kind: ${Object.entries(traffic.byKind)
      .map(([kind, statuses]) => `${kind} ${JSON.stringify(statuses)}`)
      .join(', ')}`,
    `jobs: ${jobs.accepted} accepted, ${jobs.succeeded} succeeded, ${jobs.completedOnce} finished exactly once, ${jobs.completedTwiceOrMore.length} more than once, ${jobs.neverCompleted.length} never`,
    `charged: ${jobs.chargedPerSubject.map((s) => `${s.subject} ${s.jobsCharged}/${s.accepted}`).join(', ')}`,
    `stopped workers: ${sum((r) => r.runningAtSignal)} jobs running at SIGTERM, ${sum((r) => r.finishedInDrain)} finished in the drain, ${sum((r) => r.handedBack)} handed back, ${sum((r) => r.finishedElsewhere)} of them finished by another worker`,
    `API exits after SIGTERM: ${apiExits.join(', ')} ms; worker exits: ${workers.map((r) => r.exitMs).join(', ')} ms`,
  ].join('\n');
}
