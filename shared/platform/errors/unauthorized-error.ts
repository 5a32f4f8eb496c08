import { AppError } from './app-error';

/** Why authentication failed; used for metrics and logs, never shown to the caller. */
export type AuthFailureReason = 'missing' | 'invalid' | 'expired' | 'revoked' | 'bad_link_secret';

/**
 * 401: a missing or unusable credential. The body is the same whatever the reason. With a
 * `resourceMetadataUrl` (RFC 9728), the bearer challenge points OAuth clients at the protected-resource
 * metadata instead of naming a realm.
 */
export class UnauthorizedError extends AppError {
  readonly reason: AuthFailureReason;

  constructor(reason: AuthFailureReason, scheme: 'bearer' | 'link-secret', resourceMetadataUrl?: string) {
    const challenge = resourceMetadataUrl ? `Bearer resource_metadata="${resourceMetadataUrl}"` : 'Bearer realm="connector"';
    const headers: Record<string, string> =
      scheme === 'bearer' ? { 'WWW-Authenticate': reason === 'missing' ? challenge : `${challenge}, error="invalid_token"` } : {};
    const detail =
      scheme === 'bearer'
        ? 'A valid bearer token is required. Reconnect the connector to get a new one.'
        : 'A valid x-link-secret header is required.';
    super(401, 'unauthorized', 'Unauthorized', detail, { headers });
    this.reason = reason;
  }
}
