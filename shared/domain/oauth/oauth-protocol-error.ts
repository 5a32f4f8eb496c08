/** The error codes of RFC 6749, 7009 and 7591 the connector answers. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_target'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'access_denied'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An error of the OAuth endpoints. They speak RFC 6749 (`{error, error_description}`), not problem+json,
 * because that is what OAuth clients parse; the description is shown to the caller, so it carries no
 * internals and never a presented credential.
 */
export class OAuthProtocolError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthProtocolError';
  }
}
