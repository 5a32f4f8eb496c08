// Root hooks, loaded for every run by .mocharc.json: with TEST_FILE_TIMES naming a file, each parallel worker
// appends one line per test file it ran (its worker, when it began and ended), so that a whole run tells where
// its time went and how evenly the workers were kept busy (test/support/file-times-report.ts sums it up; .ci/run
// prints it). Off by default, and in a serial run, whose root hooks run once for every file together.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'mocha';
import type { FileTime } from './file-times-report';

const OUT = process.env.TEST_FILE_TIMES;
/** A worker of parallel mocha: a forked process (an IPC channel), unlike a mocha a test spawns in a worker. */
const IN_WORKER = process.env.MOCHA_WORKER_ID !== undefined && typeof process.send === 'function';

/** When this worker finished its previous file (or started): a file's time includes loading its modules. */
let previousEnd = Math.round(performance.timeOrigin);

/** The test file the running root suite came from. */
function fileOf(context: Context): string {
  const root = context.test?.parent;
  const file = root?.file ?? root?.suites.find((suite) => suite.file)?.file ?? 'unknown';
  return path.relative(process.cwd(), file);
}

/** The hooks mocha picks up from a required file (`mochaHooks`). */
export const mochaHooks = {
  afterAll(this: Context): void {
    if (!OUT || !IN_WORKER) return;
    const end = Date.now();
    const line: FileTime = { file: fileOf(this), worker: process.pid, start: previousEnd, end };
    appendFileSync(OUT, `${JSON.stringify(line)}\n`);
    previousEnd = end;
  },
};
