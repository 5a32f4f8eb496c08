import { expect } from 'chai';
import { EventDeclarationError } from '../../../../../shared/domain/jobs/declared-events';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { backoffDelay, runAttempt, timeoutMessage } from '../../../../../shared/domain/jobs/job-runner';

describe('backoff', () => {
  it('backoff doubles after each failed attempt', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(100, attempt))).to.deep.equal([100, 200, 400, 800]);
  });
});

describe('the operation’s timeout over an attempt (runAttempt)', () => {
  const job = { id: 'job_1', operation: 'op', input: {} };
  const options = (timeoutMs: number | undefined, controller = new AbortController()) => ({
    attempt: 1,
    policy: { attempts: 1, timeoutMs },
    saveProgress: async () => {},
    controller,
  });

  it('a processor that finishes within its timeout: succeeded with its result, the signal never fired', async () => {
    const controller = new AbortController();
    const processors = new Map([['op', async () => ({ ok: true })]]);
    expect(await runAttempt(processors, job, options(1000, controller))).to.deep.equal({ kind: 'succeeded', result: { ok: true } });
    expect(controller.signal.aborted).to.equal(false);
  });

  it('a processor still running when its timeout passes: failed with the safe message, its signal fired with that JobError', async () => {
    const controller = new AbortController();
    const processors = new Map([['op', () => new Promise<Record<string, unknown>>(() => undefined)]]);
    expect(await runAttempt(processors, job, options(20, controller))).to.deep.equal({ kind: 'failed', message: timeoutMessage(20) });
    expect(controller.signal.reason).to.be.an.instanceOf(JobError);
  });

  it('no timeout: the attempt waits for its processor however long', async () => {
    let finish!: () => void;
    const processors = new Map([['op', () => new Promise<Record<string, unknown>>((resolve) => (finish = () => resolve({ late: true })))]]);
    const outcome = runAttempt(processors, job, options(undefined));
    await new Promise((resolve) => setImmediate(resolve));
    finish();
    expect(await outcome).to.deep.equal({ kind: 'succeeded', result: { late: true } });
  });
});

describe('the events a processor emits (runAttempt)', () => {
  const job = { id: 'job_e', operation: 'op', input: {} };
  const base = { attempt: 1, policy: { attempts: 2, timeoutMs: undefined }, saveProgress: async () => {} };

  it('each event is numbered within its type, and the attempt ends only once every one is stored, awaited or not', async () => {
    const stored: Array<[string, number]> = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const processors = new Map([
      [
        'op',
        async (_input: Record<string, unknown>, { emit }: { emit: (type: string, data: object) => Promise<void> }) => {
          await emit('a.b', {});
          await emit('c.d', {});
          void emit('a.b', {});
          return {};
        },
      ],
    ]);
    let ended = false;
    const outcome = runAttempt(processors as never, job, {
      ...base,
      announce: async ({ type, sequence }) => {
        if (stored.length === 2) await slow;
        stored.push([type, sequence]);
      },
    }).then((o) => {
      ended = true;
      return o;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).to.equal(false);
    release();
    expect(await outcome).to.deep.equal({ kind: 'succeeded', result: {} });
    expect(stored).to.deep.equal([
      ['a.b', 1],
      ['c.d', 1],
      ['a.b', 2],
    ]);
  });

  it('an EventDeclarationError fails the attempt at once, though attempts are left, and is reported', async () => {
    const reported: unknown[] = [];
    const processors = new Map([
      [
        'op',
        async () => {
          throw new EventDeclarationError('op emitted the event type "x.y", which its job does not declare');
        },
      ],
    ]);
    const outcome = await runAttempt(processors, job, { ...base, onUnexpected: (error) => reported.push(error) });
    expect(outcome).to.deep.equal({ kind: 'failed', message: 'The job could not be completed.' });
    expect(reported).to.have.length(1);
  });
});
