import type { ConsumedRecord, OAuthStateKind, OAuthStateStore } from '../../domain/oauth/oauth-state-store';

interface Entry {
  value: string;
  consumed: boolean;
  /** Milliseconds since the epoch; Infinity for records without expiry. */
  expiresAt: number;
}

/** OAuth state in Maps, one per kind; expired records are dropped when they are met or on insert. */
export class MemoryOAuthStateStore implements OAuthStateStore {
  private readonly kinds = new Map<OAuthStateKind, Map<string, Entry>>();

  async put(kind: OAuthStateKind, key: string, value: string, ttlSeconds: number): Promise<void> {
    this.sweep(kind);
    this.space(kind).set(key, { value, consumed: false, expiresAt: expiry(ttlSeconds) });
  }

  async get(kind: OAuthStateKind, key: string): Promise<string | undefined> {
    const entry = this.live(kind, key);
    return entry && !entry.consumed ? entry.value : undefined;
  }

  async consume(kind: OAuthStateKind, key: string): Promise<ConsumedRecord | undefined> {
    const entry = this.live(kind, key);
    if (!entry) return undefined;
    const reused = entry.consumed;
    entry.consumed = true;
    return { value: entry.value, reused };
  }

  async insertCapped(kind: OAuthStateKind, key: string, value: string, ttlSeconds: number, cap: number): Promise<boolean> {
    this.sweep(kind);
    const space = this.space(kind);
    if (space.size >= cap) return false;
    space.set(key, { value, consumed: false, expiresAt: expiry(ttlSeconds) });
    return true;
  }

  private space(kind: OAuthStateKind): Map<string, Entry> {
    let space = this.kinds.get(kind);
    if (!space) {
      space = new Map();
      this.kinds.set(kind, space);
    }
    return space;
  }

  private live(kind: OAuthStateKind, key: string): Entry | undefined {
    const entry = this.space(kind).get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.space(kind).delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(kind: OAuthStateKind): void {
    const now = Date.now();
    for (const [key, entry] of this.space(kind)) if (entry.expiresAt <= now) this.space(kind).delete(key);
  }
}

function expiry(ttlSeconds: number): number {
  return ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : Infinity;
}
