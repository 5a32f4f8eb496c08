import type { PageQuery, SeqItem } from '../../platform/pagination/page';

/** Append-only lists per subject with a global sequence, paged newest first. */
export class SubjectSequence<T> {
  private readonly lists = new Map<string, Array<SeqItem<T>>>();
  private seq = 0;

  add(subject: string, value: T): void {
    const list = this.lists.get(subject) ?? [];
    list.push({ seq: ++this.seq, value });
    this.lists.set(subject, list);
  }

  page(subject: string, { limit, before, after }: PageQuery): Array<SeqItem<T>> {
    const list = this.lists.get(subject) ?? [];
    if (before === undefined && after !== undefined) return list.filter((item) => item.seq > after).slice(0, limit);
    const out: Array<SeqItem<T>> = [];
    for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
      if (before === undefined || list[i].seq < before) out.push(list[i]);
    }
    return out;
  }

  /** Drops one subject's entries for which `keep` is false. */
  pruneSubject(subject: string, keep: (value: T) => boolean): void {
    const list = this.lists.get(subject);
    if (!list) return;
    const kept = list.filter((item) => keep(item.value));
    if (kept.length === 0) this.lists.delete(subject);
    else this.lists.set(subject, kept);
  }

  /** Drops entries for which `keep` is false (used when jobs pass their retention). */
  prune(keep: (value: T) => boolean): void {
    for (const [subject, list] of this.lists) {
      const kept = list.filter((item) => keep(item.value));
      if (kept.length === 0) this.lists.delete(subject);
      else this.lists.set(subject, kept);
    }
  }
}
