import type { RateLimitStore, RateWindow } from '../../domain/admission/rate-limit-store';

/** Fixed windows in memory; stale windows are swept as new ones start. A hit runs with no await inside, so it is atomic. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  async hit(key: string, windowSeconds: number): Promise<RateWindow> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (!window && this.windows.size > 10_000) this.sweep(now);
      window = { count: 0, resetAt: now + windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetInSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
