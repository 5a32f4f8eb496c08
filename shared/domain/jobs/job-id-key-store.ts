/**
 * Where the key that turns (subject, idempotency key) into a job id is kept. The key is fixed at first use
 * and outlives `CONNECTOR_SECRET`: a job id derived from the current secret would change on every rotation,
 * and a platform retry after the person re-links would then make a second job and a second charge.
 */
export interface JobIdKeyStore {
  /**
   * The stored key. When none is stored yet, `initial` is stored atomically first, so concurrent first
   * loads (several replicas starting together) all get the same key. Keys travel as base64url text.
   */
  load(initial: string): Promise<string>;
}
