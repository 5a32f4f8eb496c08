import { type CheckResult, exitCode, summarize } from './check-result';

/** The checklist: `PASS|WARN|FAIL  <rule id>  <message>` per rule, then a one-line verdict. */
export function formatText(results: readonly CheckResult[], url: string): string {
  const width = Math.max(0, ...results.map((r) => r.id.length));
  const lines = results.map((r) => `${r.status}  ${r.id.padEnd(width)}  ${r.message}`);
  const { pass, warn, fail } = summarize(results);
  const verdict = fail > 0 ? 'NOT READY' : 'READY';
  lines.push('', `${verdict}: ${url}: ${pass} passed, ${warn} warnings, ${fail} failed`);
  return `${lines.join('\n')}\n`;
}

/** The same results as one JSON document, for CI. */
export function formatJson(results: readonly CheckResult[], url: string, publicUrl: string): string {
  return `${JSON.stringify({ url, public_url: publicUrl, ok: exitCode(results) === 0, summary: summarize(results), results }, null, 2)}\n`;
}
