import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** Keys derived once at start from `CONNECTOR_SECRET`; the raw secret is never used as a key. */
export interface DerivedKeys {
  /** HS256 key for access tokens. A KeyObject keeps `jwt.verify` ~50× cheaper than a string secret. */
  readonly tokenKey: KeyObject;
  /** HMAC key that turns subject + idempotency key into an unguessable job id. */
  readonly jobIdKey: KeyObject;
}

function derive(secret: string, purpose: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'connector', purpose, 32)));
}

/** Derives every key from the connector secret; changing the secret changes them all. */
export function deriveKeys(connectorSecret: string): DerivedKeys {
  return {
    tokenKey: derive(connectorSecret, 'access-token/v1'),
    jobIdKey: derive(connectorSecret, 'job-id/v1'),
  };
}
