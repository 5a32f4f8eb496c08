/**
 * Thrown by a probe to end the wait at once with this error (a process that died, a stranger on a port): any
 * other error counts as "not yet" and is only reported if the deadline passes.
 */
export class GiveUp extends Error {}

/**
 * Polls `probe` until it returns a truthy value or the deadline passes. Tests, the topology starters and the
 * bench wait on conditions with this, never on fixed sleeps.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 25, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
