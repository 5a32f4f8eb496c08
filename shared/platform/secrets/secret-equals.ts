import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Makes a constant-time check against one expected secret. Both sides are hashed, so the comparison takes
 * the same time whatever the lengths; the expected side is hashed once, here.
 */
export function secretMatcher(expected: string): (presented: string | undefined) => boolean {
  const want = digest(expected);
  return (presented) => typeof presented === 'string' && timingSafeEqual(digest(presented), want);
}
