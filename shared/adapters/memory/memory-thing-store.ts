import type { Thing } from '../../domain/things/thing';
import type { ThingStore } from '../../domain/things/thing-store';
import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import { SubjectSequence } from './subject-sequence';

/** Things per subject in memory. */
export class MemoryThingStore implements ThingStore {
  private readonly things = new SubjectSequence<Thing>();

  async add(subject: string, thing: Thing): Promise<void> {
    this.things.add(subject, { ...thing });
  }

  async list(subject: string, query: PageQuery): Promise<Array<SeqItem<Thing>>> {
    return this.things.page(subject, query);
  }
}
