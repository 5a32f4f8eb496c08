import type { Command } from 'ioredis';

/**
 * What a command needs for its deadline: ioredis's `Command` has both. `isResolved` is set by a reply only: a
 * command the server answered with an error stays held until its deadline, where rejecting it again does
 * nothing, and holds the settled commands behind it that long (bounded by the timeout; errors are rare).
 */
export type DeadlineCommand = Pick<Command, 'isResolved' | 'reject'>;

/** The message a command past its deadline is rejected with: the one ioredis's own `commandTimeout` uses. */
export const COMMAND_TIMED_OUT = 'Command timed out';

/** Time and the one timer, as {@link CommandDeadlines} uses them; tests pass a clock they move by hand. */
export interface DeadlineClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Runs `run` once, `delayMs` from now, without keeping the process alive. */
  after(delayMs: number, run: () => void): void;
}

const systemClock: DeadlineClock = {
  now: () => performance.now(),
  // Unref'd: a pending command keeps the process alive through its socket, not through its deadline.
  after: (delayMs, run) => setTimeout(run, delayMs).unref(),
};

/**
 * Rejects every command that has no reply `timeoutMs` after it was sent, with one timer for all of a client's
 * commands instead of ioredis's `commandTimeout`, which arms and clears a timer per command.
 * Why: docs/decisions/command-deadlines-one-timer.md.
 */
export class CommandDeadlines {
  private readonly commands: Array<DeadlineCommand | undefined> = [];
  private readonly due: number[] = [];
  private head = 0;
  private armed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly clock: DeadlineClock = systemClock,
  ) {}

  /** Commands still held: the pending ones, and settled ones behind the oldest pending command. */
  get held(): number {
    return this.commands.length - this.head;
  }

  /** Starts a command's deadline; call it as the command is sent. */
  track(command: DeadlineCommand): void {
    this.dropFromHead(-Infinity);
    this.commands.push(command);
    this.due.push(this.clock.now() + this.timeoutMs);
    if (!this.armed) this.arm();
  }

  /** The timer's turn: rejects what is due, then waits for the next oldest pending command. */
  private readonly expire = (): void => {
    this.armed = false;
    this.dropFromHead(this.clock.now());
    if (this.head < this.commands.length) this.arm();
  };

  /** Drops settled commands from the head, rejecting on the way those due by `now`. */
  private dropFromHead(now: number): void {
    const { commands, due } = this;
    while (this.head < commands.length) {
      const command = commands[this.head]!;
      if (!command.isResolved) {
        if (due[this.head] > now) break;
        command.reject(new Error(COMMAND_TIMED_OUT));
      }
      commands[this.head] = undefined;
      this.head += 1;
    }
    this.compact();
  }

  /** Gives back the dropped head's slots: all of them when the queue is empty, else once they are the majority. */
  private compact(): void {
    if (this.head === 0) return;
    if (this.head === this.commands.length) {
      this.commands.length = 0;
      this.due.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.commands.length) {
      this.commands.splice(0, this.head);
      this.due.splice(0, this.head);
      this.head = 0;
    }
  }

  private arm(): void {
    this.armed = true;
    this.clock.after(Math.max(0, this.due[this.head] - this.clock.now()), this.expire);
  }
}

/** What {@link boundCommands} wraps: an ioredis client, single node or cluster (a cluster's also takes the node). */
export interface CommandSender {
  sendCommand(command: Command, stream?: unknown, node?: unknown): unknown;
}

/**
 * Bounds every command sent through `client` (a single node or a cluster) by `timeoutMs`, as ioredis's
 * `commandTimeout` would, through {@link CommandDeadlines}.
 */
export function boundCommands(client: CommandSender, timeoutMs: number): void {
  const deadlines = new CommandDeadlines(timeoutMs);
  const send = client.sendCommand;
  // A cluster's takes the node as a third argument; a single node's ignores it.
  client.sendCommand = function sendWithDeadline(this: CommandSender, command: Command, stream?: unknown, node?: unknown): unknown {
    deadlines.track(command);
    return send.call(this, command, stream, node);
  };
}
