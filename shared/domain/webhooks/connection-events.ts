import type { Connection, ConnectionStore } from '../connections/connection-store';
import type { EventQueue } from './event-queue';
import { newEvent } from './webhook-event';

/**
 * A connection store that records `connection.created` and `connection.revoked` as it creates and revokes,
 * for every path that does so (`/v1/link`, `/v1/link/revoke`, OAuth consent, and the OAuth revocations: a
 * replayed code or refresh token, RFC 7009). Each event is recorded *before* the write that makes it true, so
 * no crash in between can lose it; the delivery sends it only once the write is visible (event-facts.ts).
 * Without a receiver the plain store is used.
 */
export function withConnectionEvents(store: ConnectionStore, events: EventQueue): ConnectionStore {
  return events.enabled ? new EventfulConnectionStore(store, events) : store;
}

class EventfulConnectionStore implements ConnectionStore {
  constructor(
    private readonly store: ConnectionStore,
    private readonly events: EventQueue,
  ) {}

  async create(connection: Connection): Promise<void> {
    await this.events.enqueue(newEvent('connection.created', connection.id));
    await this.store.create(connection);
  }

  get(id: string): Promise<Connection | undefined> {
    return this.store.get(id);
  }

  /** Only a live connection gets an event: revoking an unknown or revoked one changes nothing. */
  async revoke(id: string): Promise<number> {
    const connection = await this.store.get(id);
    if (!connection || connection.revoked) return 0;
    await this.events.enqueue(newEvent('connection.revoked', id));
    return this.store.revoke(id);
  }

  /**
   * Revokes the subject's live connections one by one, each after its event: a connection created meanwhile
   * is not revoked (it was not there when the dashboard asked), and never revoked without its event.
   */
  async revokeSubject(subject: string): Promise<number> {
    const ids = await this.store.liveIds(subject);
    await Promise.all(ids.map((id) => this.events.enqueue(newEvent('connection.revoked', id))));
    const counts = await Promise.all(ids.map((id) => this.store.revoke(id)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  liveIds(subject: string): Promise<string[]> {
    return this.store.liveIds(subject);
  }

  list(subject: string): Promise<Connection[]> {
    return this.store.list(subject);
  }

  /** A use is no event. */
  touch(id: string, at: number): Promise<void> {
    return this.store.touch(id, at);
  }
}
