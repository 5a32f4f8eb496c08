/** The longest wait between two attempts to deliver one event. */
export const MAX_RETRY_DELAY_MS = 3_600_000;
/** Attempts go on for at least this long after the first one while the receiver fails. */
export const RETRY_WINDOW_MS = 24 * 3_600_000;

/** The wait after failed attempt `attempt` (1 for the first): `base`, `2·base`, `4·base`, … capped at an hour. */
export function retryDelay(baseMs: number, attempt: number): number {
  return Math.min(baseMs * 2 ** Math.min(attempt - 1, 40), MAX_RETRY_DELAY_MS);
}

/**
 * How many attempts the schedule makes: the fewest whose waits add up to {@link RETRY_WINDOW_MS}. With the
 * default base of 5 s that is 34 attempts over about 24.4 hours.
 */
export function retryAttempts(baseMs: number): number {
  let attempts = 1;
  for (let waited = 0; waited < RETRY_WINDOW_MS; attempts++) waited += retryDelay(baseMs, attempts);
  return attempts;
}
