import { randomBytes } from 'node:crypto';

/**
 * A fresh client address to send as `x-forwarded-for`, from 198.18.0.0/15 (set aside for tests), so that
 * the per-address limits a test exercises start empty whatever other tests sent.
 */
export function newClientAddress(): string {
  const [half, third, fourth] = randomBytes(3);
  return `198.${18 + (half & 1)}.${third}.${1 + (fourth % 254)}`;
}
