import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh opaque secret (code, refresh token, client secret): 256 random bits, base64url. */
export function newOpaqueSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The SHA-256 of a secret, base64url: what is stored in place of the secret. The secrets are 256 random
 * bits, so a fast hash is enough; there is nothing to brute-force.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Compares two base64url digests in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'base64url');
  const right = Buffer.from(b, 'base64url');
  return left.length === right.length && timingSafeEqual(left, right);
}
