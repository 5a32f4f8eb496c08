import { expect } from 'chai';
import type { SettleResult } from '../../../../../shared/domain/credits/credit-store';
import type { JobRecord } from '../../../../../shared/domain/jobs/job';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { type AttemptPorts, type JobEnd, JobLifecycle, MAX_STALLS, type TakenJob } from '../../../../../shared/domain/jobs/job-lifecycle';
import type { FinalOutcome, JobObserver } from '../../../../../shared/domain/jobs/job-observer';
import { GENERIC_JOB_FAILURE } from '../../../../../shared/domain/jobs/job-runner';
import { cancelKeeps, type JobMoney, prepaidMoney, type Settled, settlementOf } from '../../../../../shared/domain/jobs/job-settlement';
import type { Processor } from '../../../../../shared/domain/jobs/processor';
import { UnfinishedEnding } from '../../../../../shared/domain/jobs/unfinished-ending';
import type { RefundRequest } from '../../../../../shared/domain/ledger/ledger-store';

const CHARGED = { id: 'job_1', subject: 's', operation: 'op', cost: 3, created_at: '2026-01-01T00:00:00.000Z', input: {} };

function taken(extra: Partial<TakenJob> = {}): TakenJob {
  return {
    job: CHARGED,
    attempt: 1,
    attemptsStarted: 1,
    maxAttempts: 1,
    startedMs: Date.now(),
    stalls: 0,
    lastReport: null,
    controller: new AbortController(),
    ...extra,
  };
}

/** Ports that answer at once and write down, in order, every step the lifecycle takes. */
function recordingPorts(steps: string[], options: { cancelAsked?: boolean; failAt?: string } = {}) {
  const step = (name: string) => {
    steps.push(name);
    if (options.failAt === name) throw new Error(`${name} failed`);
  };
  const ports: AttemptPorts<string> = {
    cancelAsked: () => options.cancelAsked ?? false,
    saveProgress: async () => {},
    retry: (message) => `retry: ${message}`,
    writeDecision: (end) => step(`decision ${end.ending.kind}`),
    writeSettled: (_end, settled) => step(`settled ${settled.released}`),
    markEnded: (end) => {
      step(`marked ${end.ending.kind}`);
      return end.ending.kind;
    },
  };
  return ports;
}

function lifecycle(steps: string[], processor: Processor, options: { refundOnFailure?: boolean; made?: boolean } = {}) {
  const money: JobMoney = {
    settle: (_job, settlement): Settled => {
      steps.push(`settle ${settlement.release}`);
      return { released: settlement.release, made: options.made ?? true };
    },
  };
  const observed: string[] = [];
  const observer: JobObserver = {
    started: () => observed.push('started'),
    finished: (_job, outcome: FinalOutcome) => observed.push(`finished ${outcome}`),
    refunded: (_job, reason, credits) => observed.push(`refunded ${reason} ${credits}`),
    retrying: () => observed.push('retrying'),
    threw: () => observed.push('threw'),
    stalledTooOften: () => observed.push('stalled too often'),
  };
  const subject = new JobLifecycle({
    processors: new Map([['op', processor]]),
    money,
    observer,
    events: { enabled: true, record: (outcome) => void steps.push(`event job.${outcome}`) },
    terms: () => ({ refundOnFailure: options.refundOnFailure ?? true }),
    afterJobEvent: () => steps.push('after event'),
  });
  return { subject, observed };
}

const fails: Processor = async () => {
  throw new JobError('No.', { retryable: false });
};

describe('the job lifecycle (JobLifecycle) on ports that record each step', () => {
  it('a failed attempt is decided, written, settled, recorded and only then marked, in that order', async () => {
    const steps: string[] = [];
    const { subject, observed } = lifecycle(steps, fails);
    expect(await subject.attempt(taken(), recordingPorts(steps))).to.equal('failed');
    expect(steps).to.deep.equal(['decision failed', 'settle 3', 'settled 3', 'event job.failed', 'after event', 'marked failed']);
    expect(observed).to.deep.equal(['started', 'refunded failed 3', 'finished failed']);
  });

  it('with sync ports the whole ending is one synchronous step: it is marked before end() returns', () => {
    const steps: string[] = [];
    const { subject } = lifecycle(steps, fails);
    const end: JobEnd = {
      job: CHARGED,
      ending: { kind: 'canceled' },
      attempt: { id: 'job_1', operation: 'op', attempt: 1 },
      endedAt: 0,
      ranMs: 0,
      progress: null,
      ran: false,
    };
    const result = subject.end(end, recordingPorts(steps));
    expect(result).to.equal('canceled');
    expect(steps.at(-1)).to.equal('marked canceled');
  });

  it('a write before the event that fails is an UnfinishedEnding: no event is recorded and nothing is marked', async () => {
    for (const failAt of ['decision failed', 'settled 3']) {
      const steps: string[] = [];
      const { subject, observed } = lifecycle(steps, fails);
      const outcome = await subject.attempt(taken(), recordingPorts(steps, { failAt })).catch((error: unknown) => error);
      expect(outcome, failAt).to.be.instanceOf(UnfinishedEnding);
      expect(
        steps.filter((step) => step.startsWith('event') || step.startsWith('marked')),
        failAt,
      ).to.deep.equal([]);
      expect(observed, failAt).to.deep.equal(['started']);
    }
  });

  it('a job taken again after its failure was decided ends failed with its kept message, without running again', async () => {
    const steps: string[] = [];
    let runs = 0;
    const { subject, observed } = lifecycle(steps, async () => ({ run: ++runs }), { made: false });
    const again = taken({ attempt: 2, attemptsStarted: 2, maxAttempts: 3, lastError: 'Kept.', earlier: 'failed' });
    expect(await subject.attempt(again, recordingPorts(steps))).to.equal('failed');
    expect(runs).to.equal(0);
    // The refund was made the first time: found made now, it is not counted again.
    expect(observed).to.deep.equal(['finished failed']);
  });

  it(`a job taken again after more than ${MAX_STALLS} stalls fails with the generic message without running`, async () => {
    const steps: string[] = [];
    let runs = 0;
    const { subject, observed } = lifecycle(steps, async () => ({ run: ++runs }));
    let message: string | undefined;
    const ports = {
      ...recordingPorts(steps),
      writeDecision: (end: JobEnd) => {
        message = end.ending.kind === 'failed' ? end.ending.message : '';
      },
    };
    expect(await subject.attempt(taken({ stalls: MAX_STALLS + 1 }), ports)).to.equal('failed');
    expect(runs).to.equal(0);
    expect(message).to.equal(GENERIC_JOB_FAILURE);
    expect(observed[0]).to.equal('stalled too often');
  });

  it('a cancel asked while the attempt ran wins over its failure, never over its success', async () => {
    const steps: string[] = [];
    expect(await lifecycle(steps, fails).subject.attempt(taken(), recordingPorts(steps, { cancelAsked: true }))).to.equal('canceled');
    const succeeds: Processor = async () => ({ ok: true });
    expect(await lifecycle(steps, succeeds).subject.attempt(taken(), recordingPorts(steps, { cancelAsked: true }))).to.equal('succeeded');
  });

  it('an ending settles by the attempt’s last report, or by the report the job was taken with when it made none', async () => {
    const report = (percent: number) => ({ percent, message: null, updated_at: '2026-01-01T00:00:00.000Z' });
    const progressOf = async (processor: Processor) => {
      let progress: unknown;
      const ports = {
        ...recordingPorts([]),
        markEnded: (end: JobEnd) => {
          progress = end.progress;
          return end.ending.kind;
        },
      };
      await lifecycle([], processor).subject.attempt(taken({ lastReport: report(20) }), ports);
      return progress;
    };
    expect(await progressOf(fails)).to.deep.equal(report(20));
    const reports: Processor = async (_input, context) => {
      context.progress(60);
      throw new JobError('No.', { retryable: false });
    };
    expect(await progressOf(reports)).to.include({ percent: 60 });
  });

  it('a retryable failure with attempts left is handed back to retry, with nothing settled or recorded', async () => {
    const steps: string[] = [];
    const retryable: Processor = async () => {
      throw new JobError('Busy.');
    };
    const { subject, observed } = lifecycle(steps, retryable);
    expect(await subject.attempt(taken({ maxAttempts: 2 }), recordingPorts(steps))).to.equal('retry: Busy.');
    expect(steps).to.deep.equal([]);
    expect(observed).to.deep.equal(['started', 'retrying']);
  });
});

describe('a cancel that ended a job in the queue (settleCanceled)', () => {
  const queued = { ...CHARGED, status: 'canceled', attempts: 0, started_at: null, progress: null } as unknown as JobRecord;

  it('a cancel: settled (all given back), its event recorded and the end counted when this call made the settlement', async () => {
    const steps: string[] = [];
    const { subject, observed } = lifecycle(steps, fails, { made: true });
    await subject.settleCanceled(queued);
    expect(steps).to.deep.equal(['settle 3', 'event job.canceled', 'after event']);
    expect(observed).to.deep.equal(['refunded canceled 3', 'finished canceled']);
  });

  it('a cancel repeated after the settlement was made: the event is recorded again (a no-op), nothing counted twice', async () => {
    const steps: string[] = [];
    const { subject, observed } = lifecycle(steps, fails, { made: false });
    await subject.settleCanceled(queued);
    expect(steps).to.deep.equal(['settle 3', 'event job.canceled', 'after event']);
    expect(observed).to.deep.equal([]);
  });

  it('a repair that finds the settlement made: nothing recorded; one that makes it: recorded and counted', async () => {
    const already: string[] = [];
    await lifecycle(already, fails, { made: false }).subject.settleCanceled(queued, { repair: true });
    expect(already).to.deep.equal(['settle 3']);
    const repaired: string[] = [];
    const { subject, observed } = lifecycle(repaired, fails, { made: true });
    await subject.settleCanceled(queued, { repair: true });
    expect(repaired).to.deep.equal(['settle 3', 'event job.canceled', 'after event']);
    expect(observed).to.deep.equal(['refunded canceled 3', 'finished canceled']);
  });
});

describe('the settlement of an ending (settlementOf)', () => {
  it('a success keeps the charge; a cancel gives it back; a failure gives it back unless its operation keeps it', () => {
    const job = { cost: 4 };
    expect(settlementOf(job, { kind: 'succeeded', result: {} }, { refundOnFailure: true })).to.deep.equal({ capture: 4, release: 0 });
    expect(settlementOf(job, { kind: 'canceled' }, { refundOnFailure: false })).to.deep.equal({
      capture: 0,
      release: 4,
      reason: 'canceled',
    });
    expect(settlementOf(job, { kind: 'failed', message: 'x' }, { refundOnFailure: true })).to.deep.equal({
      capture: 0,
      release: 4,
      reason: 'failed',
    });
    expect(settlementOf(job, { kind: 'failed', message: 'x' }, { refundOnFailure: false })).to.deep.equal({ capture: 4, release: 0 });
  });
});

describe('what a cancel keeps (cancelCharge)', () => {
  it('a cancel before the start keeps nothing whatever the charge; after it, none keeps 0, full the price, progress the share rounded up', () => {
    const job = { cost: 10 };
    for (const cancelCharge of ['none', 'progress', 'full'] as const) {
      const before = settlementOf(job, { kind: 'canceled' }, { refundOnFailure: true, cancelCharge }, { started: false, percent: 90 });
      expect(before, cancelCharge).to.deep.equal({ capture: 0, release: 10, reason: 'canceled' });
    }
    const running = (cancelCharge: 'none' | 'progress' | 'full', percent: number) =>
      settlementOf(job, { kind: 'canceled' }, { refundOnFailure: true, cancelCharge }, { started: true, percent });
    expect(running('none', 90)).to.deep.equal({ capture: 0, release: 10, reason: 'canceled' });
    expect(running('full', 5)).to.deep.equal({ capture: 10, release: 0, reason: 'canceled' });
    expect(running('progress', 37)).to.deep.equal({ capture: 4, release: 6, reason: 'canceled' });
    expect(running('progress', 0)).to.deep.equal({ capture: 0, release: 10, reason: 'canceled' });
    expect(running('progress', 100)).to.deep.equal({ capture: 10, release: 0, reason: 'canceled' });
  });

  it('progress rounds any started share up to a whole credit and stays within the price', () => {
    expect(cancelKeeps(1, 'progress', 1)).to.equal(1);
    expect(cancelKeeps(3, 'progress', 34)).to.equal(2);
    expect(cancelKeeps(3, 'progress', 33)).to.equal(1);
    expect(cancelKeeps(7, 'progress', 250)).to.equal(7);
    expect(cancelKeeps(7, 'progress', -5)).to.equal(0);
    expect(cancelKeeps(0, 'full', 50)).to.equal(0);
  });
});

describe('prepaid settlement (prepaidMoney)', () => {
  const job = { id: 'job_1', subject: 's', operation: 'op', cost: 10, created_at: '2026-11-27T10:00:00.000Z' };

  it('ends the hold keeping the capture, then refunds the usage what the hold released; a job without a hold settles as metered', () => {
    const calls: string[] = [];
    let hold: SettleResult['outcome'] = 'settled';
    const money = prepaidMoney(
      {
        capture: (request) => {
          calls.push(`capture ${request.credits}`);
          const account = { balance: 0, held: 0 };
          return hold === 'none' ? { outcome: 'none', account } : { outcome: hold, captured: 4, released: 6, account };
        },
        refund: (request: RefundRequest) => {
          calls.push(`refund ${request.credits}`);
          return true;
        },
      },
      60,
    );
    expect(money.settle(job, { capture: 4, release: 6, reason: 'canceled' })).to.deep.equal({
      released: 6,
      made: true,
      hold: { captured: 4 },
    });
    hold = 'already';
    expect(money.settle(job, { capture: 4, release: 6, reason: 'canceled' })).to.deep.equal({
      released: 6,
      made: false,
      hold: { captured: 4 },
    });
    hold = 'none';
    expect(money.settle(job, { capture: 4, release: 6, reason: 'canceled' })).to.deep.equal({ released: 6, made: true });
    expect(calls).to.deep.equal(['capture 4', 'refund 6', 'capture 4', 'refund 6', 'capture 4', 'refund 6']);
  });
});
