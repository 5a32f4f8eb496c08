import { expect } from 'chai';
import {
  COMMAND_TIMED_OUT,
  CommandDeadlines,
  type DeadlineClock,
  type DeadlineCommand,
} from '../../../../../shared/adapters/redis/command-deadlines';

/**
 * A command as the deadlines see it, as ioredis 5's `Command` behaves: resolved by a reply; a rejection (by the
 * deadlines or by the client) does not mark it resolved.
 */
class FakeCommand implements DeadlineCommand {
  isResolved = false;
  rejection: Error | undefined;
  rejections = 0;
  readonly reject = (error: Error): void => {
    this.rejections += 1;
    this.rejection ??= error;
  };
  reply(): void {
    this.isResolved = true;
  }
}

/** A clock moved by hand; `advance` runs every timer that falls due, in order, as the event loop would. */
class HandClock implements DeadlineClock {
  private t = 0;
  timers: Array<{ at: number; run: () => void }> = [];
  now(): number {
    return this.t;
  }
  after(delayMs: number, run: () => void): void {
    this.timers.push({ at: this.t + delayMs, run });
  }
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > until) break;
      this.timers.shift();
      this.t = next.at;
      next.run();
    }
    this.t = until;
  }
}

describe('CommandDeadlines', () => {
  it('a command without a reply is rejected with "Command timed out" at its timeout, not before; one that replied is not', () => {
    const clock = new HandClock();
    const deadlines = new CommandDeadlines(2000, clock);
    const answered = new FakeCommand();
    const silent = new FakeCommand();
    deadlines.track(answered);
    clock.advance(500);
    deadlines.track(silent);
    answered.reply();
    clock.advance(1999);
    expect(silent.rejection).to.equal(undefined);
    clock.advance(1);
    expect(silent.rejection?.message).to.equal(COMMAND_TIMED_OUT);
    expect(answered.rejection).to.equal(undefined);
    expect(deadlines.held).to.equal(0);
  });

  it('many commands share one timer at a time, armed only while some command is held', () => {
    const clock = new HandClock();
    const deadlines = new CommandDeadlines(2000, clock);
    const commands = Array.from({ length: 1000 }, () => new FakeCommand());
    for (const command of commands) deadlines.track(command);
    expect(clock.timers).to.have.length(1);
    for (const command of commands) command.reply();
    clock.advance(2000);
    expect(clock.timers).to.have.length(0);
    expect(commands.filter((command) => command.rejection)).to.have.length(0);
  });

  it("commands answered in order leave the queue as new ones are sent: it holds those in flight, not the last timeout's", () => {
    const deadlines = new CommandDeadlines(2000, new HandClock());
    const inFlight: FakeCommand[] = [];
    let mostHeld = 0;
    for (let i = 0; i < 10_000; i += 1) {
      const command = new FakeCommand();
      deadlines.track(command);
      inFlight.push(command);
      if (inFlight.length > 50) inFlight.shift()!.reply();
      mostHeld = Math.max(mostHeld, deadlines.held);
    }
    expect(mostHeld).to.equal(51);
  });

  it('a command that never answers is rejected once, and those behind it at their own deadlines', () => {
    const clock = new HandClock();
    const deadlines = new CommandDeadlines(1000, clock);
    const stuck = new FakeCommand();
    const later = new FakeCommand();
    deadlines.track(stuck);
    clock.advance(300);
    deadlines.track(later);
    clock.advance(700);
    expect(stuck.rejection?.message).to.equal(COMMAND_TIMED_OUT);
    expect(later.rejection).to.equal(undefined);
    clock.advance(300);
    expect(later.rejection?.message).to.equal(COMMAND_TIMED_OUT);
    clock.advance(5000);
    expect([stuck.rejections, later.rejections]).to.deep.equal([1, 1]);
    expect(deadlines.held).to.equal(0);
  });
});
