import { randomFillSync } from 'node:crypto';

/** Bytes of one id's randomness (128 bits). */
const ID_BYTES = 16;
/** Ids drawn from one fill of the pool. */
const IDS_PER_FILL = 256;

// A pool filled from the CSPRNG, each byte handed out once, as `crypto.randomUUID`'s cache: as unguessable as
// `randomBytes(16)` per id, which cost a prepaid job's submit path (bench/README.md).
const pool = Buffer.alloc(ID_BYTES * IDS_PER_FILL);
let next = pool.length;

/** An unguessable id with a type prefix, e.g. `thing_3q2…` (128 random bits). */
export function newId(prefix: string): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const id = pool.toString('base64url', next, next + ID_BYTES);
  next += ID_BYTES;
  return `${prefix}_${id}`;
}
