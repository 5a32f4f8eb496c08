import { decodeCursor, encodeCursor } from '../../platform/pagination/cursor';
import type { Page } from '../../platform/pagination/page';
import { newId } from '../../platform/util/ids';
import type { Thing } from './thing';
import type { ThingStore } from './thing-store';

/** Creates and lists a subject's things. */
export class ThingService {
  constructor(private readonly store: ThingStore) {}

  async create(subject: string, input: { name: string; notes?: string }): Promise<Thing> {
    const thing: Thing = { id: newId('thing'), name: input.name, notes: input.notes ?? null, created_at: new Date().toISOString() };
    await this.store.add(subject, thing);
    return thing;
  }

  async list(subject: string, limit: number, cursor?: string): Promise<Page<Thing>> {
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const found = await this.store.list(subject, { limit: limit + 1, before });
    const shown = found.slice(0, limit);
    return {
      items: shown.map((item) => item.value),
      next_cursor: found.length > limit ? encodeCursor(shown[shown.length - 1].seq) : null,
    };
  }
}
