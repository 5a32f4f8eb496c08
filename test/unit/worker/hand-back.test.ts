import { expect } from 'chai';
import pino from 'pino';
import { handBack } from '../../../worker/hand-back';
import type { BullJobOf, RunningJob } from '../../../worker/running-job';
import { LogCapture } from '../../support/log-capture';

/** A running job whose move back to waiting answers as `move` says, recording the token it was given. */
function running(id: string, move: (token: string) => Promise<unknown>): RunningJob {
  return { job: { id, moveToWait: move } as unknown as BullJobOf, token: `token-${id}` };
}

describe('handBack', () => {
  it('moves each job back under its own lock token and answers the ids that went back', async () => {
    const tokens: string[] = [];
    const jobs = ['a', 'b'].map((id) => running(id, async (token) => tokens.push(token)));
    expect(await handBack(jobs, pino({ level: 'silent' }))).to.deep.equal(['a', 'b']);
    expect(tokens).to.deep.equal(['token-a', 'token-b']);
  });

  it('sets each job’s handedBack before its move answers: an attempt ending meanwhile can wait for it', async () => {
    let answer!: () => void;
    const job = running('a', () => new Promise<void>((resolve) => (answer = resolve)));
    const done = handBack([job], pino({ level: 'silent' }));
    expect(job.handedBack).to.be.an.instanceOf(Promise);
    answer();
    expect(await job.handedBack).to.equal(true);
    expect(await done).to.deep.equal(['a']);
  });

  it('a move Redis refuses: that job is not among the ids, its handedBack is false, and a warning names it', async () => {
    const capture = new LogCapture();
    const logger = pino({ level: 'warn' }, capture);
    const jobs = [running('a', async () => undefined), running('b', () => Promise.reject(new Error('Missing lock')))];
    expect(await handBack(jobs, logger)).to.deep.equal(['a']);
    expect(await jobs[1].handedBack).to.equal(false);
    expect(capture.text()).to.include('"job_id":"b"');
  });
});
