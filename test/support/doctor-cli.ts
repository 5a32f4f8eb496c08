import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { CheckResult } from '../../doctor/check-result';
import { ROOT, spawnNode } from './spawn-process';

/** The FAIL lines of a run, as `id: message`. */
export function failures(run: DoctorRun): string[] {
  return run.results.filter((r) => r.status === 'FAIL').map((r) => `${r.id}: ${r.message}`);
}

/** One run of the built CLI: its exit code, what it printed, and (with --json) its parsed results. */
export interface DoctorRun {
  code: number | string;
  stdout: string;
  stderr: string;
  results: CheckResult[];
  /** The result of one rule; the test fails when the rule did not run. */
  rule(id: string): CheckResult;
}

/**
 * Runs `node dist/doctor/main.js <args> --json` (built by `npm test` before mocha) with exactly `env`;
 * `json: false` leaves --json off to see the checklist as an operator does.
 */
export async function runDoctorCli(args: string[], env: Record<string, string> = {}, { json = true } = {}): Promise<DoctorRun> {
  expect(existsSync(path.join(ROOT, 'dist', 'doctor', 'main.js')), 'dist/doctor/main.js is built (npm run build)').to.equal(true);
  const spawned = spawnNode('dist/doctor/main.js', env, json ? [...args, '--json'] : args);
  const code = await spawned.exited;
  const stdout = spawned.stdout();
  let results: CheckResult[] = [];
  if (stdout.trimStart().startsWith('{')) results = (JSON.parse(stdout) as { results: CheckResult[] }).results;
  return {
    code,
    stdout,
    stderr: spawned.stderr(),
    results,
    rule: (id) => {
      const found = results.find((r) => r.id === id);
      expect(found, `rule ${id} in ${stdout}${spawned.stderr()}`).to.not.equal(undefined);
      return found!;
    },
  };
}
