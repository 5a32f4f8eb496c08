/** The state of one fixed window after a hit. */
export interface RateWindow {
  count: number;
  /** Seconds until the window resets. */
  resetInSeconds: number;
}

/** Counts hits per key in fixed windows; shared by every replica when it is on Redis. */
export interface RateLimitStore {
  /**
   * Counts one hit and answers the window with it, in one atomic step: concurrent hits on a key each get a
   * different count, so a caller may check a quota on the answer without a race.
   */
  hit(key: string, windowSeconds: number): Promise<RateWindow>;
}
