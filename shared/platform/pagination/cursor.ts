import { ValidationError } from '../errors/problems';

/**
 * Cursors are opaque to callers; inside they carry the sequence number of the last item shown. They hold
 * nothing about other subjects, so a forged one can only move within the caller's own list.
 */
export function encodeCursor(seq: number): string {
  return Buffer.from(`v1.${seq}`, 'utf8').toString('base64url');
}

/** Decodes a cursor, or throws a 400 if it was not made by {@link encodeCursor}. */
export function decodeCursor(cursor: string): number {
  const match = /^v1\.(\d{1,15})$/.exec(cursorText(cursor));
  if (!match) throw invalidCursor();
  return Number(match[1]);
}

/** A position in a list ordered by time, then id: the time (seconds) and id of the last item shown. */
export interface TimePosition {
  seconds: number;
  id: string;
}

/**
 * A cursor for lists that have no sequence number (a subject's connections): the last item's time and id,
 * which stay put when items before or after it come and go. Ids are the service's own (`newId`).
 */
export function encodeTimeCursor({ seconds, id }: TimePosition): string {
  return Buffer.from(`t1.${seconds}.${id}`, 'utf8').toString('base64url');
}

/** Decodes a cursor, or throws a 400 if it was not made by {@link encodeTimeCursor}. */
export function decodeTimeCursor(cursor: string): TimePosition {
  const match = /^t1\.(\d{1,15})\.([A-Za-z0-9_-]{1,40})$/.exec(cursorText(cursor));
  if (!match) throw invalidCursor();
  return { seconds: Number(match[1]), id: match[2] };
}

function cursorText(cursor: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
}

function invalidCursor(): ValidationError {
  return new ValidationError('The cursor is not valid.', [{ path: '/query/cursor', message: 'is not a cursor this service issued' }]);
}
