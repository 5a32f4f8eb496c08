import { randomBytes } from 'node:crypto';

/** An unguessable id with a type prefix, e.g. `thing_3q2…` (128 random bits). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}
