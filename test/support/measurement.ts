/**
 * Prints a figure a test measured (a failover's duration, a latency bound) when `TEST_MEASUREMENTS=1`, and
 * nothing otherwise: a passing run is quiet, and the figures are there for whoever asks for them.
 */
export function measurement(line: string): void {
  if (process.env.TEST_MEASUREMENTS === '1') process.stdout.write(`      ${line.replace(/^\s+/, '')}\n`);
}
