import { createSecretKey, type KeyObject } from 'node:crypto';
import type { JobIdKeyStore } from './job-id-key-store';

/** Supplies the HMAC key for job ids; {@link JobService} asks it on every submit. */
export interface JobIdKeySource {
  current(): Promise<KeyObject>;
}

/**
 * The job-id key, loaded from its store on first use and cached from then on. The key derived from the
 * current secret is only the value offered when the store holds none, so a running deployment upgraded from
 * 0.1.0 (which derived the key and stored none) stores the key it was already using and keeps every job id. A failed load (Redis
 * away at start) is not cached: the next submit tries again, and until then submits answer 503.
 */
export class StoredJobIdKey implements JobIdKeySource {
  private cached: KeyObject | undefined;
  private loading: Promise<KeyObject> | undefined;

  constructor(
    private readonly store: JobIdKeyStore,
    private readonly derived: KeyObject,
  ) {}

  async current(): Promise<KeyObject> {
    if (this.cached) return this.cached;
    // Concurrent first submits share one load instead of each calling the store.
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<KeyObject> {
    const stored = await this.store.load(this.derived.export().toString('base64url'));
    const bytes = Buffer.from(stored, 'base64url');
    // A value that does not decode to a full key is corruption; refusing beats silently minting new ids.
    if (bytes.length < 32) throw new Error('stored job-id key is malformed');
    this.cached = createSecretKey(bytes);
    return this.cached;
  }
}
