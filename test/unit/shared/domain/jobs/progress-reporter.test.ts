import { expect } from 'chai';
import fc from 'fast-check';
import { createProgressReporter, type JobProgress, MAX_PROGRESS_MESSAGE } from '../../../../../shared/domain/jobs/progress-reporter';
import { waitFor } from '../../../../testkit/wait-for';

/** A write that records what it stores and how many writes overlap; each resolves when released (or at once). */
function recordingStore({ hold = false } = {}) {
  const written: JobProgress[] = [];
  const releases: Array<() => void> = [];
  let active = 0;
  let maxActive = 0;
  const write = async (progress: JobProgress): Promise<void> => {
    active++;
    maxActive = Math.max(maxActive, active);
    if (hold) await new Promise<void>((resolve) => releases.push(resolve));
    written.push(progress);
    active--;
  };
  return { write, written, releases, overlap: () => maxActive };
}

describe('coalescing a processor’s progress reports', () => {
  it('a thousand reports in a tight loop cause a single write, of the latest value, one interval after the start', async () => {
    const store = recordingStore();
    const started = Date.now();
    const reporter = createProgressReporter(store.write, { intervalMs: 40 });
    for (let i = 0; i < 1000; i++) reporter.report(i % 101, `report ${i}`);
    expect(store.written, 'nothing written at once').to.deep.equal([]);
    await waitFor(() => store.written.length === 1, { what: 'the coalesced write' });
    expect(Date.now() - started).to.be.at.least(35);
    expect(store.written.map((p) => [p.percent, p.message])).to.deep.equal([[999 % 101, 'report 999']]);
    await reporter.settle();
    expect(store.written).to.have.length(1);
  });

  it('reports spread over several intervals are written about once per interval, not once per report', async () => {
    const store = recordingStore();
    const reporter = createProgressReporter(store.write, { intervalMs: 30 });
    const started = Date.now();
    let reports = 0;
    while (Date.now() - started < 200) {
      reporter.report(reports++ % 101);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await reporter.settle();
    expect(reports).to.be.greaterThan(100);
    // 200 ms at one write per 30 ms is about 7 writes, plus the last one settled.
    expect(store.written.length).to.be.within(3, 9);
  });

  it('while a slow write is in flight, later reports wait for it and only the latest is written next, never two at once', async () => {
    const store = recordingStore({ hold: true });
    const reporter = createProgressReporter(store.write, { intervalMs: 0 });
    reporter.report(10);
    reporter.report(20);
    reporter.report(30, 'third');
    await waitFor(() => store.releases.length === 1, { what: 'the first write to start' });
    store.releases.shift()!();
    await waitFor(() => store.releases.length === 1, { what: 'the second write to start' });
    store.releases.shift()!();
    await reporter.settle();
    expect(store.written.map((p) => [p.percent, p.message])).to.deep.equal([
      [10, null],
      [30, 'third'],
    ]);
    expect(store.overlap()).to.equal(1);
  });

  it('settle writes the latest report still waiting for its interval at once and resolves after it is stored', async () => {
    const store = recordingStore();
    const reporter = createProgressReporter(store.write, { intervalMs: 60_000 });
    reporter.report(5);
    reporter.report(95, 'almost');
    await reporter.settle();
    expect(store.written.map((p) => [p.percent, p.message])).to.deep.equal([[95, 'almost']]);
  });

  it('each write carries the time of its report as updated_at', async () => {
    const store = recordingStore();
    const reporter = createProgressReporter(store.write, { now: () => Date.parse('2026-03-01T10:00:00.000Z') });
    reporter.report(50);
    await reporter.settle();
    expect(store.written[0]).to.deep.equal({ percent: 50, message: null, updated_at: '2026-03-01T10:00:00.000Z' });
  });

  it('a percentage that is not a whole number from 0 to 100, or a message over 200 characters, is refused with a RangeError and nothing is written', async () => {
    const store = recordingStore();
    const reporter = createProgressReporter(store.write);
    for (const percent of [-1, 101, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => reporter.report(percent), String(percent)).to.throw(RangeError);
    }
    expect(() => reporter.report(1, 'x'.repeat(MAX_PROGRESS_MESSAGE + 1))).to.throw(RangeError);
    expect(() => reporter.report(1, 'x'.repeat(MAX_PROGRESS_MESSAGE))).to.not.throw();
    await reporter.settle();
    expect(store.written.map((p) => p.message?.length)).to.deep.equal([MAX_PROGRESS_MESSAGE]);
  });

  it('a failed write is handed to onError and the next report is still written', async () => {
    const errors: unknown[] = [];
    const written: number[] = [];
    let fail = true;
    const reporter = createProgressReporter(
      async (progress) => {
        if (fail) {
          fail = false;
          throw new Error('store down');
        }
        written.push(progress.percent);
      },
      { intervalMs: 0, onError: (error) => errors.push(error) },
    );
    reporter.report(1);
    await reporter.settle();
    reporter.report(2);
    await reporter.settle();
    expect(errors.map((error) => (error as Error).message)).to.deep.equal(['store down']);
    expect(written).to.deep.equal([2]);
  });

  it('after close, a late report (from a processor that ignored its signal) is dropped and never written', async () => {
    const store = recordingStore();
    const reporter = createProgressReporter(store.write, { intervalMs: 0 });
    reporter.report(40);
    await reporter.close();
    reporter.report(90, 'too late');
    await reporter.settle();
    expect(store.written.map((p) => p.percent)).to.deep.equal([40]);
  });

  it('for any reports and write delays, the writes are the reports in order, one at a time, ending with the last one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ percent: fc.integer({ min: 0, max: 100 }), pauseMs: fc.integer({ min: 0, max: 3 }) }), {
          minLength: 1,
          maxLength: 15,
        }),
        fc.integer({ min: 0, max: 3 }),
        async (reports, writeMs) => {
          const written: number[] = [];
          let active = 0;
          let overlap = 0;
          const reporter = createProgressReporter(
            async (progress) => {
              overlap = Math.max(overlap, ++active);
              await new Promise((resolve) => setTimeout(resolve, writeMs));
              written.push(Number(progress.message));
              active--;
            },
            { intervalMs: 2 },
          );
          for (const [index, { percent, pauseMs }] of reports.entries()) {
            reporter.report(percent, String(index));
            if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
          }
          await reporter.settle();
          expect(overlap).to.be.at.most(1);
          expect(written, 'strictly increasing report indexes').to.deep.equal([...new Set(written)].sort((a, b) => a - b));
          expect(written.at(-1)).to.equal(reports.length - 1);
        },
      ),
      { numRuns: 40 },
    );
  });
});
