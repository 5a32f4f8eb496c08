/** How one rule came out: FAIL blocks a platform, WARN deserves a look, PASS is fine. */
export type CheckStatus = 'PASS' | 'WARN' | 'FAIL';

/** One line of the checklist. */
export interface CheckResult {
  /** A stable rule id, e.g. `openapi.servers`; docs/checking-a-deployment.md lists them all. */
  id: string;
  status: CheckStatus;
  message: string;
}

/** Builds a PASS line. */
export const pass = (id: string, message: string): CheckResult => ({ id, status: 'PASS', message });
/** Builds a WARN line. */
export const warn = (id: string, message: string): CheckResult => ({ id, status: 'WARN', message });
/** Builds a FAIL line. */
export const fail = (id: string, message: string): CheckResult => ({ id, status: 'FAIL', message });

/**
 * One rule applied to many items (operations, tools): FAIL listing the offenders, or PASS with `passMessage`.
 * Keeps a rule to one line however many operations it looked at.
 */
export function allOf(id: string, problems: readonly string[], passMessage: string, status: 'WARN' | 'FAIL' = 'FAIL'): CheckResult {
  if (problems.length === 0) return pass(id, passMessage);
  return { id, status, message: problems.join('; ') };
}

/** Counts of each status. */
export interface Summary {
  pass: number;
  warn: number;
  fail: number;
}

/** Tallies the results. */
export function summarize(results: readonly CheckResult[]): Summary {
  const summary: Summary = { pass: 0, warn: 0, fail: 0 };
  for (const result of results) summary[result.status.toLowerCase() as keyof Summary] += 1;
  return summary;
}

/** The process exit code: 0 only when nothing failed. */
export function exitCode(results: readonly CheckResult[]): number {
  return results.some((result) => result.status === 'FAIL') ? 1 : 0;
}
