/**
 * Races `work` against a deadline of `graceMs`: true when it fulfilled first, false when the deadline
 * passed first (the work is left running, its later outcome ignored); rejects with its error when it
 * rejected first. The timer is cleared either way, so a finished race keeps nothing alive.
 */
export async function withinGrace(work: PromiseLike<unknown>, graceMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  try {
    return await Promise.race([Promise.resolve(work).then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
