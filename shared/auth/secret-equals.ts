import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first so the
 * comparison takes the same time whatever the lengths.
 */
export function secretEquals(presented: string | undefined, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
