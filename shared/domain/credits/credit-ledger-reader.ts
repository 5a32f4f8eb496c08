import { ValidationError } from '../../platform/errors/problems';
import type { CreditEntry, CreditStore, CreditTotals } from './credit-store';
import { NO_TOTALS } from './credit-store';

/** How many entries or accounts one read of the store takes: the export's memory is bounded by it. */
const READ_PAGE = 200;

/**
 * Entries are ordered by sequence number, their `at` set by the replica that moved them: a newest-first scan
 * for a `since` goes this far past it before stopping, so a replica's clock skew cannot hide an entry.
 */
const CLOCK_SKEW_MS = 60_000;

/** A period of entries, by their `at`: from `since` (included) to `until` (excluded); either may be open. */
export interface Period {
  since?: string;
  until?: string;
}

/** One line of the export: an entry with its subject, and the cursor that resumes after it. */
export interface ExportLine {
  entry: CreditEntry & { subject: string };
  cursor: string;
}

/** The summary over every account: the totals and whether they reconcile. */
export interface CreditSummary extends CreditTotals {
  accounts: number;
  /** `granted + adjusted − captured − expired − voided = balance + held`. */
  reconciles: boolean;
}

/** Whether an entry's time is within the period. */
export function inPeriod(entry: Pick<CreditEntry, 'at'>, { since, until }: Period): boolean {
  return (since === undefined || entry.at >= since) && (until === undefined || entry.at < until);
}

/** The period as ISO 8601 UTC (so that entries compare as strings); 400 for a bad time or an empty period. */
export function periodOf(since: unknown, until: unknown): Period {
  const period: Period = {};
  if (typeof since === 'string') period.since = isoOf(since, '/query/since');
  if (typeof until === 'string') period.until = isoOf(until, '/query/until');
  if (period.since !== undefined && period.until !== undefined && period.since >= period.until)
    throw new ValidationError('The period is empty.', [{ path: '/query/until', message: 'must be after since' }]);
  return period;
}

function isoOf(value: string, path: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ValidationError('Not a time.', [{ path, message: 'must be an RFC 3339 date-time' }]);
  return new Date(ms).toISOString();
}

/** The export's cursor: the subject and the sequence number of the last entry written. */
export function encodeExportCursor(subject: string, seq: number): string {
  return Buffer.from(JSON.stringify(['x1', subject, seq]), 'utf8').toString('base64url');
}

/** Decodes an export cursor, or throws a 400. */
export function decodeExportCursor(cursor: string): { subject: string; seq: number } {
  try {
    const [tag, subject, seq] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (tag === 'x1' && typeof subject === 'string' && Number.isSafeInteger(seq)) return { subject, seq: seq as number };
  } catch {
    // Falls through to the 400 below.
  }
  throw new ValidationError('The cursor is not one this export gave.', [{ path: '/query/cursor', message: 'invalid cursor' }]);
}

/**
 * Reads the ledger across accounts: the summary and the export walk every account in the store's one stable
 * order (by subject), a page at a time, so memory stays bounded whatever the number of entries.
 */
export class CreditLedgerReader {
  constructor(private readonly store: CreditStore) {}

  /** Every account's totals added up, with whether they reconcile. */
  async summary(): Promise<CreditSummary> {
    const sum: CreditTotals = { ...NO_TOTALS };
    let accounts = 0;
    for await (const subjects of this.subjectPages()) {
      const totals = await Promise.all(subjects.map((subject) => this.store.totals(subject)));
      for (const one of totals) for (const name of Object.keys(sum) as Array<keyof CreditTotals>) sum[name] += one[name];
      accounts += subjects.length;
    }
    const reconciles = sum.granted + sum.adjusted - sum.captured - sum.expired - sum.voided === sum.balance + sum.held;
    return { ...sum, accounts, reconciles };
  }

  /**
   * Every account's entries in the period: accounts by subject, each one's entries oldest first; each line
   * carries the cursor that resumes after it.
   */
  async *export(period: Period, cursor?: string): AsyncGenerator<ExportLine> {
    const from = cursor === undefined ? undefined : decodeExportCursor(cursor);
    if (from) yield* this.accountLines(from.subject, period, from.seq);
    for await (const subjects of this.subjectPages(from?.subject)) {
      for (const subject of subjects) yield* this.accountLines(subject, period, 0);
    }
  }

  /**
   * A page of a subject's entries in the period, newest first, from below `before`: scans the store's pages
   * and stops once past `since` (with {@link CLOCK_SKEW_MS} to spare). Answers up to `limit` entries and the
   * sequence number of the last one.
   */
  async statementPage(
    subject: string,
    query: { limit: number; before?: number; period: Period },
  ): Promise<Array<{ seq: number; value: CreditEntry }>> {
    const found: Array<{ seq: number; value: CreditEntry }> = [];
    const stopBelow = query.period.since === undefined ? undefined : new Date(Date.parse(query.period.since) - CLOCK_SKEW_MS).toISOString();
    for await (const item of this.newestFirst(subject, query.before)) {
      if (stopBelow !== undefined && item.value.at < stopBelow) break;
      if (inPeriod(item.value, query.period)) found.push(item);
      if (found.length >= query.limit) break;
    }
    return found;
  }

  /** A subject's entries newest first from below `before`, read a page at a time. */
  private async *newestFirst(subject: string, from?: number): AsyncGenerator<{ seq: number; value: CreditEntry }> {
    let before = from;
    for (;;) {
      const page = await this.store.entries(subject, { limit: READ_PAGE, ...(before === undefined ? {} : { before }) });
      yield* page;
      if (page.length < READ_PAGE) return;
      before = page[page.length - 1].seq;
    }
  }

  private async *accountLines(subject: string, period: Period, after: number): AsyncGenerator<ExportLine> {
    let from = after;
    for (;;) {
      const page = await this.store.entries(subject, { limit: READ_PAGE, after: from });
      for (const { seq, value } of page) {
        if (inPeriod(value, period)) yield { entry: { subject, ...value }, cursor: encodeExportCursor(subject, seq) };
      }
      if (page.length < READ_PAGE) return;
      from = page[page.length - 1].seq;
    }
  }

  private async *subjectPages(after?: string): AsyncGenerator<string[]> {
    let from = after;
    for (;;) {
      const page = await this.store.subjects(READ_PAGE, from);
      if (page.subjects.length > 0) yield page.subjects;
      if (page.next === undefined) return;
      from = page.next;
    }
  }
}
