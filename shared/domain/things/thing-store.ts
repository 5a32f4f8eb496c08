import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import type { Thing } from './thing';

/** Things per subject, in insertion order. */
export interface ThingStore {
  add(subject: string, thing: Thing): Promise<void>;
  /** Newest first, strictly older than `query.before` when given. */
  list(subject: string, query: PageQuery): Promise<Array<SeqItem<Thing>>>;
}
