import { digestsEqual, hashSecret } from './opaque-secret';

/** RFC 7636: 43..128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is a base64url SHA-256: 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** True when `challenge` has the shape of an S256 code challenge. */
export function isS256Challenge(challenge: unknown): challenge is string {
  return typeof challenge === 'string' && CHALLENGE.test(challenge);
}

/** PKCE S256 (the only method offered): BASE64URL(SHA256(verifier)) must equal the stored challenge. */
export function verifiesS256(verifier: unknown, challenge: string): boolean {
  const derived = s256ChallengeOf(verifier);
  return derived !== undefined && digestsEqual(derived, challenge);
}

/** The S256 challenge of a well-formed verifier (BASE64URL(SHA256(verifier))); undefined for anything else. */
export function s256ChallengeOf(verifier: unknown): string | undefined {
  return typeof verifier === 'string' && VERIFIER.test(verifier) ? hashSecret(verifier) : undefined;
}
