/** The backends every HTTP suite runs against: one suite, parametrised, never copied. */
export type BackendKind = 'memory' | 'redis';

const ALL_BACKENDS: readonly BackendKind[] = ['memory', 'redis'];

/**
 * The backends named by `TEST_BACKENDS` (comma-separated), all of them when it is unset. `npm run test:fast`
 * sets `memory` so that the loop starts no redis-server; `npm test` leaves it unset and runs both.
 */
export function selectedBackends(value: string | undefined): readonly BackendKind[] {
  if (value === undefined || value.trim() === '') return ALL_BACKENDS;
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(ALL_BACKENDS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`TEST_BACKENDS names ${unknown.join(', ')}; known backends: ${ALL_BACKENDS.join(', ')}`);
  return ALL_BACKENDS.filter((kind) => names.includes(kind));
}

export const BACKENDS: readonly BackendKind[] = selectedBackends(process.env.TEST_BACKENDS);
