import {
  type ClientRegistrationLimits,
  type ClientRegistrationOutcome,
  type ConsumedRecord,
  MAX_EVICTIONS_PER_REGISTRATION,
  type OAuthStateKind,
  type OAuthStateStore,
} from '../../domain/oauth/oauth-state-store';

interface Entry {
  value: string;
  consumed: boolean;
  /** Milliseconds since the epoch; Infinity for records without expiry. */
  expiresAt: number;
  /** Set for clients saved by `registerClient`, the ones the cap counts. */
  registration?: {
    /** When the last grant recorded for the client ends (ms); unset while it never had one. */
    grantEndsAt?: number;
  };
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
    return entry && take(entry);
  }

  async consumeMatching(
    kind: OAuthStateKind,
    key: string,
    fields: Readonly<Record<string, string>>,
  ): Promise<ConsumedRecord | 'mismatch' | undefined> {
    const entry = this.live(kind, key);
    if (!entry) return undefined;
    // Checked and taken in one synchronous step: nothing can consume the entry in between.
    return hasFields(entry.value, fields) ? take(entry) : 'mismatch';
  }

  async registerClient(key: string, value: string, { ttlSeconds, cap }: ClientRegistrationLimits): Promise<ClientRegistrationOutcome> {
    this.sweep('client');
    const space = this.space('client');
    let count = 0;
    for (const entry of space.values()) if (entry.registration) count++;
    let evicted = 0;
    while (count >= cap && evicted < MAX_EVICTIONS_PER_REGISTRATION) {
      const victim = evictable(space, Date.now());
      if (victim === undefined) break;
      space.delete(victim);
      count--;
      evicted++;
    }
    if (count >= cap && evicted === 0) return { registered: false, evicted };
    space.set(key, { value, consumed: false, expiresAt: expiry(ttlSeconds), registration: {} });
    return { registered: true, evicted };
  }

  async recordClientGrant(key: string, value: string, grantEndsAt: number, keepAfterGrantSeconds: number): Promise<boolean> {
    const entry = this.live('client', key);
    if (!entry?.registration) return false;
    const ends = Math.max(entry.registration.grantEndsAt ?? 0, grantEndsAt);
    entry.registration.grantEndsAt = ends;
    entry.expiresAt = Math.max(entry.expiresAt, ends + keepAfterGrantSeconds * 1000);
    entry.value = value;
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

/** Marks an entry consumed and hands it out, saying whether it already was. */
function take(entry: Entry): ConsumedRecord {
  const reused = entry.consumed;
  entry.consumed = true;
  return { value: entry.value, reused };
}

/** True when `value` is a JSON object holding every one of `fields` with exactly that value. */
function hasFields(value: string, fields: Readonly<Record<string, string>>): boolean {
  let record: unknown;
  try {
    record = JSON.parse(value);
  } catch {
    return false;
  }
  if (typeof record !== 'object' || record === null) return false;
  return Object.entries(fields).every(
    ([name, expected]) => Object.hasOwn(record, name) && (record as Record<string, unknown>)[name] === expected,
  );
}

/**
 * The registration to evict next: the never-granted one closest to expiry (the oldest, as they share one
 * lifetime), else the one whose grants ended longest ago; undefined when every one may hold a live grant.
 */
function evictable(space: Map<string, Entry>, now: number): string | undefined {
  let unused: [string, number] | undefined;
  let ended: [string, number] | undefined;
  for (const [key, { registration, expiresAt }] of space) {
    if (!registration) continue;
    const { grantEndsAt } = registration;
    if (grantEndsAt === undefined) {
      if (!unused || expiresAt < unused[1]) unused = [key, expiresAt];
    } else if (grantEndsAt <= now && (!ended || grantEndsAt < ended[1])) {
      ended = [key, grantEndsAt];
    }
  }
  return (unused ?? ended)?.[0];
}

function expiry(ttlSeconds: number): number {
  return ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : Infinity;
}
