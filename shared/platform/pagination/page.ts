/** One page of a list, newest first. `next_cursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** A position in a per-subject sequence; stores page by it so that inserts never shift a page. */
export interface SeqItem<T> {
  seq: number;
  value: T;
}

/**
 * How a store is asked for a page: up to `limit` items with `seq` below `before`, newest first; or, with
 * `after` (and no `before`), items with `seq` above it, oldest first.
 */
export interface PageQuery {
  limit: number;
  before?: number;
  after?: number;
}
