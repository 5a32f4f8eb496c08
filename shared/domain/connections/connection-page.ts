import { decodeTimeCursor, encodeTimeCursor } from '../../platform/pagination/cursor';
import type { Page } from '../../platform/pagination/page';
import type { Connection } from './connection-store';
import { type ConnectionView, toConnectionView } from './connection-view';

/** What the dashboard asks of a subject's connections. */
export interface ConnectionQuery {
  /** Revoked connections are shown only when asked for (until they expire, when the store forgets them). */
  includeRevoked: boolean;
  limit: number;
  cursor?: string;
}

/** Newest first; connections made in the same second in a fixed order, by id. */
function newestFirst(a: Connection, b: Connection): number {
  return b.issuedAt - a.issuedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * One page of a subject's connections as the dashboard sees them, newest first. The cursor is the last
 * shown connection's creation time and id, so connections made or expiring between two pages move no
 * other connection from one page to the next.
 */
export function pageConnections(connections: readonly Connection[], query: ConnectionQuery): Page<ConnectionView> {
  const after = query.cursor === undefined ? undefined : decodeTimeCursor(query.cursor);
  const ordered = connections
    .filter((connection) => query.includeRevoked || !connection.revoked)
    .filter(
      (connection) => !after || connection.issuedAt < after.seconds || (connection.issuedAt === after.seconds && connection.id < after.id),
    )
    .sort(newestFirst);
  const shown = ordered.slice(0, query.limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map(toConnectionView),
    next_cursor: ordered.length > query.limit ? encodeTimeCursor({ seconds: last.issuedAt, id: last.id }) : null,
  };
}
