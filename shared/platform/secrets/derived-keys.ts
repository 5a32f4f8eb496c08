import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** Keys derived once at start from one `CONNECTOR_SECRET` value; the raw secret is never used as a key. */
export interface DerivedKeys {
  /**
   * Names this secret's keys in what they sign (a token's `kid`): derived, so every replica given the same
   * secret agrees on it, and one-way, so it says nothing about the secret.
   */
  readonly keyId: string;
  /** HS256 key for access tokens. A KeyObject keeps `jwt.verify` ~50× cheaper than a string secret. */
  readonly tokenKey: KeyObject;
  /** HMAC key that turns subject + idempotency key into an unguessable job id (only offered once: see job-id-key.ts). */
  readonly jobIdKey: KeyObject;
  /** HMAC key of the dev consent page's anti-forgery field. */
  readonly consentFormKey: KeyObject;
  /** HMAC key of the spend quotes an MCP confirmation carries (see shared/domain/spend/spend-quote.ts). */
  readonly spendQuoteKey: KeyObject;
}

function bytes(secret: string, purpose: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'connector', purpose, length));
}

const derive = (secret: string, purpose: string): KeyObject => createSecretKey(bytes(secret, purpose, 32));

/** Derives every key from one value of the connector secret; changing the secret changes them all. */
export function deriveKeys(connectorSecret: string): DerivedKeys {
  return {
    keyId: bytes(connectorSecret, 'key-id/v1', 9).toString('base64url'),
    tokenKey: derive(connectorSecret, 'access-token/v1'),
    jobIdKey: derive(connectorSecret, 'job-id/v1'),
    consentFormKey: derive(connectorSecret, 'dev-consent-csrf/v1'),
    spendQuoteKey: derive(connectorSecret, 'spend-quote/v1'),
  };
}
