import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Which configured value a presented secret equals. */
export type SecretMatch = 'current' | 'previous' | undefined;

/**
 * Makes a constant-time check against one expected secret. Both sides are hashed, so the comparison takes
 * the same time whatever the lengths; the expected side is hashed once, here.
 */
export function secretMatcher(expected: string): (presented: string | undefined) => boolean {
  const match = secretsMatcher(expected);
  return (presented) => match(presented) === 'current';
}

/**
 * The same check against the current value and, during a rotation's overlap, the previous one. Both
 * comparisons always run, each in constant time, and only then is the answer picked: how long a check takes
 * does not tell which value matched, or whether either did.
 */
export function secretsMatcher(current: string, previous?: string): (presented: string | undefined) => SecretMatch {
  const wanted = [digest(current), digest(previous ?? current)];
  const hasPrevious = previous !== undefined;
  return (presented) => {
    if (typeof presented !== 'string') return undefined;
    const given = digest(presented);
    const isCurrent = timingSafeEqual(given, wanted[0]!);
    const isPrevious = timingSafeEqual(given, wanted[1]!) && hasPrevious;
    if (isCurrent) return 'current';
    return isPrevious ? 'previous' : undefined;
  };
}
