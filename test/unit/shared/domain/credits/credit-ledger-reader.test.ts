import { expect } from 'chai';
import { MemoryCreditStore } from '../../../../../shared/adapters/memory/memory-credit-store';
import { CreditLedgerReader, decodeExportCursor, periodOf } from '../../../../../shared/domain/credits/credit-ledger-reader';
import type { CreditStore } from '../../../../../shared/domain/credits/credit-store';
import { grantOf } from '../../../../support/credit-store-contract';

/** A memory store that records the size of every page read from it. */
function watched(store: MemoryCreditStore): { store: CreditStore; limits: number[] } {
  const limits: number[] = [];
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== 'entries' && name !== 'subjects') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        limits.push(name === 'entries' ? (args[1] as { limit: number }).limit : (args[0] as number));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, limits };
}

describe('CreditLedgerReader', () => {
  it('the export of 1,000 entries reads at most 200 at a time and yields its first line before reading a second page', async () => {
    const memory = new MemoryCreditStore();
    for (let i = 0; i < 1_000; i++) await memory.grant(grantOf(`s${i % 3}@example.com`, 1));
    const { store, limits } = watched(memory);
    const lines = new CreditLedgerReader(store).export({});
    const first = await lines.next();
    expect(first.done).to.equal(false);
    const readsBeforeFirst = limits.length;
    let count = 1;
    for await (const _ of lines) count += 1;
    expect(count).to.equal(1_000);
    expect(readsBeforeFirst, 'one page of subjects and one of entries').to.equal(2);
    expect(Math.max(...limits)).to.be.at.most(201);
  });

  it('the export is in one stable order: subjects by name, entries oldest first; a cursor resumes just after its line', async () => {
    const store = new MemoryCreditStore();
    for (const subject of ['b@example.com', 'a@example.com']) for (const credits of [1, 2, 3]) await store.grant(grantOf(subject, credits));
    const reader = new CreditLedgerReader(store);
    const all: Array<{ subject: string; credits: number; cursor: string }> = [];
    for await (const line of reader.export({})) all.push({ subject: line.entry.subject, credits: line.entry.credits, cursor: line.cursor });
    expect(all.map((line) => `${line.subject[0]}${line.credits}`)).to.deep.equal(['a1', 'a2', 'a3', 'b1', 'b2', 'b3']);
    const rest: string[] = [];
    for await (const line of reader.export({}, all[1].cursor)) rest.push(`${line.entry.subject[0]}${line.entry.credits}`);
    expect(rest).to.deep.equal(['a3', 'b1', 'b2', 'b3']);
  });

  it('the summary adds up every account and reconciles after grants, adjustments, holds, captures, releases and voids', async () => {
    const store = new MemoryCreditStore();
    const subject = 'x@example.com';
    const grant = grantOf(subject, 50);
    await store.grant(grant);
    await store.grant(grantOf(subject, -5));
    await store.hold({ subject, jobId: 'job_a', credits: 10, at: new Date().toISOString() });
    await store.hold({ subject, jobId: 'job_b', credits: 7, at: new Date().toISOString() });
    await store.capture({ subject, jobId: 'job_a', credits: 6, ttlSeconds: 60 });
    await store.voidGrant({ subject, grantId: grant.grantId, voidId: 'v1', fingerprint: 'f' });
    const summary = await new CreditLedgerReader(store).summary();
    expect(summary).to.deep.include({ granted: 50, adjusted: -5, captured: 6, released: 4, voided: 32, balance: 0, held: 7, holds: 1 });
    expect(summary.reconciles).to.equal(true);
  });

  it('a period is refused when a bound is not a time or since is not before until; a forged cursor is refused', () => {
    expect(() => periodOf('yesterday', undefined)).to.throw(/Not a time/);
    expect(() => periodOf('2026-05-02T00:00:00Z', '2026-05-01T00:00:00Z')).to.throw(/empty/);
    expect(periodOf('2026-05-01T00:00:00+02:00', undefined)).to.deep.equal({ since: '2026-04-30T22:00:00.000Z' });
    expect(() => decodeExportCursor('not-a-cursor')).to.throw(/cursor/);
  });
});
