/** The state of one fixed window after a hit. */
export interface RateWindow {
  count: number;
  /** Seconds until the window resets. */
  resetInSeconds: number;
}

/** Counts hits per key in fixed windows; shared by every replica when it is on Redis. */
export interface RateLimitStore {
  hit(key: string, windowSeconds: number): Promise<RateWindow>;
  /** The key's current window without counting a hit; undefined when no window is open. */
  peek(key: string): Promise<RateWindow | undefined>;
}
