import { newId } from '../../platform/util/ids';

/**
 * A retry's mark on the hold of a job it is about to enqueue (its first attempt was charged, then died before
 * enqueueing): `<ms>:<id>`, when it was taken, on the retrying replica's clock (the clock a hold's acceptance is
 * read on too), and a random id, so that two marks are never equal. The orphan sweep reads it before it looks
 * for the job and releases the hold only while the hold carries the very mark it read
 * (docs/decisions/repair-mark-fences-the-sweep.md).
 */
export type RepairMark = string;

/** A new mark taken at `now` (ms). */
export function newRepairMark(now: number = Date.now()): RepairMark {
  return `${now}:${newId('rep')}`;
}

/** When the mark was taken (ms); a mark it cannot read counts as taken now, which keeps the sweep off for a deadline. */
export function repairMarkTime(mark: RepairMark, now: number = Date.now()): number {
  const at = Number(mark.slice(0, mark.indexOf(':')));
  return mark.includes(':') && Number.isSafeInteger(at) ? at : now;
}
