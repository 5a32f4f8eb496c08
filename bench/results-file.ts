import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes `entries` into the JSON object in `file`, keeping every other top-level key: the full bench, the
 * soak and the rolling restart each own their keys of `bench/results.json` and are run at different times.
 */
export function mergeResults(file: string, entries: Record<string, unknown>): void {
  const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(file, `${JSON.stringify({ ...current, ...entries }, null, 2)}\n`);
}
