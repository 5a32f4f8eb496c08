import type { JobIdKeyStore } from '../../domain/jobs/job-id-key-store';

/**
 * The embedded backend's key store: the first key offered is kept for the life of the process. Every job
 * and charge dies with the process too, so there is nothing older for a retry to match.
 */
export class MemoryJobIdKeyStore implements JobIdKeyStore {
  private stored: string | undefined;

  async load(initial: string): Promise<string> {
    this.stored ??= initial;
    return this.stored;
  }
}
