import { ValidationError } from '../errors/validation-error';

/**
 * Cursors are opaque to callers; inside they carry the sequence number of the last item shown. They hold
 * nothing about other subjects, so a forged one can only move within the caller's own list.
 */
export function encodeCursor(seq: number): string {
  return Buffer.from(`v1.${seq}`, 'utf8').toString('base64url');
}

/** Decodes a cursor, or throws a 400 if it was not made by {@link encodeCursor}. */
export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^v1\.(\d{1,15})$/.exec(text);
  if (!match) throw new ValidationError('The cursor is not valid.', [{ path: '/query/cursor', message: 'is not a cursor this service issued' }]);
  return Number(match[1]);
}
