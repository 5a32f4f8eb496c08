import { readFileSync } from 'node:fs';

/** One test file as a parallel worker ran it (test/support/file-times.ts): epoch milliseconds. */
export interface FileTime {
  readonly file: string;
  readonly worker: number;
  readonly start: number;
  readonly end: number;
}

/** A run's files summed up: the longest, and how long each worker was busy before the last one finished. */
export function fileTimesReport(times: readonly FileTime[], longest = 15): string {
  if (times.length === 0) return 'no file times recorded';
  const first = Math.min(...times.map((t) => t.start));
  const last = Math.max(...times.map((t) => t.end));
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const byLength = [...times].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, longest);
  const workers = [...new Set(times.map((t) => t.worker))].map((worker) => {
    const own = times.filter((t) => t.worker === worker);
    const busy = own.reduce((sum, t) => sum + t.end - t.start, 0);
    return `  worker ${worker}: ${own.length} file${own.length === 1 ? '' : 's'}, busy ${seconds(busy)}, done at ${seconds(Math.max(...own.map((t) => t.end)) - first)}`;
  });
  return [
    `${times.length} files in ${seconds(last - first)}; the ${byLength.length} longest:`,
    ...byLength.map((t) => `  ${seconds(t.end - t.start).padStart(8)}  ${t.file}`),
    ...workers,
  ].join('\n');
}

// `tsx test/support/file-times-report.ts <file>`: what .ci/run prints after the whole suite.
if (require.main === module) {
  const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
  console.log(fileTimesReport(lines.map((line) => JSON.parse(line) as FileTime)));
}
