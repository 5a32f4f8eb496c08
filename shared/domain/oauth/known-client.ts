/** A client the connector knows, however it came to know it. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: readonly string[];
  /** Set for confidential (pre-registered) clients only. */
  secretSha256?: string;
  /**
   * For a dynamically registered client, when a person first approved it (seconds since the epoch); unset
   * until then.
   */
  approvedAt?: number;
}
