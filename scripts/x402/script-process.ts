import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/**
 * Node's `--import` value that loads tsx's TypeScript loader, by its absolute URL: a bare `tsx` would be
 * resolved from the working directory, which need not be the repository's (npm run dev's `.env` folder).
 */
export const TSX_IMPORT = pathToFileURL(require.resolve('tsx')).href;

/** What a kit process prints, alone on a line, once it serves: this prefix, then a JSON object. */
const READY_PREFIX = 'x402-kit ready ';

/** What a kit process prints, alone on a line, at each step worth waiting on: this prefix, then a JSON object. */
const EVENT_PREFIX = 'x402-kit event ';

/** Prints the ready line of a kit process (`value`: its URLs, for whoever started it). */
export function announceReady(value: Record<string, unknown>): void {
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(value)}\n`);
}

/** Prints an event line (a request received, a settlement done), for a test to wait on. */
export function announceEvent(value: Record<string, unknown>): void {
  process.stdout.write(`${EVENT_PREFIX}${JSON.stringify(value)}\n`);
}

/**
 * Runs `close` on SIGTERM or SIGINT, then exits: the kit's processes stop cleanly when told to. They also stop
 * when their standard input closes: {@link startScript} holds it open, so a test runner that dies without
 * closing its stand leaves no chain or facilitator behind.
 */
export function closeOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.once('close', stop).resume();
}

/** A started kit process: its ready line, its output so far, and how to end it. */
export interface ScriptProcess<T> {
  readonly child: ChildProcess;
  readonly ready: T;
  output(): string;
  /** The next event line (printed after this call) for which `matches` holds. */
  nextEvent(matches: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Ends it (SIGTERM, or `signal`) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** How to start one kit process. */
export interface ScriptOptions {
  /** The entry, relative to this folder (`chain.ts`, `facilitator.ts`). */
  readonly entry: string;
  readonly env: Record<string, string>;
  readonly timeoutMs?: number;
}

function stopper(child: ChildProcess): (signal?: NodeJS.Signals) => Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async (signal = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
}

type Waiter = { matches: (event: Record<string, unknown>) => boolean; resolve: (event: Record<string, unknown>) => void };

/** The event lines of a process, handed to whoever waits for one. */
function eventHub() {
  let waiters: Waiter[] = [];
  return {
    publish(event: Record<string, unknown>) {
      const due = waiters.filter((waiter) => waiter.matches(event));
      waiters = waiters.filter((waiter) => !due.includes(waiter));
      for (const waiter of due) waiter.resolve(event);
    },
    next(matches: Waiter['matches']): Promise<Record<string, unknown>> {
      return new Promise((resolve) => waiters.push({ matches, resolve }));
    },
  };
}

/**
 * Starts a kit entry as its own Node process (the running Node, with tsx's loader: one process, so a signal
 * reaches the entry itself) and resolves with its ready line; rejects with its output when it exits or stays
 * silent past the deadline. The environment is exactly `env` plus PATH: never c8's coverage directory, as the
 * kit runs none of the product's code, and each of its processes would leave megabytes of coverage (viem, EDR,
 * `@x402/evm`) for c8 to read, possibly while a stand that ends with its test process is still writing them.
 */
export function startScript<T>({ entry, env, timeoutMs = 30_000 }: ScriptOptions): Promise<ScriptProcess<T>> {
  const root = path.resolve(__dirname, '..', '..');
  const child = spawn(process.execPath, ['--import', TSX_IMPORT, path.join(__dirname, entry)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => (output += chunk));
  const stop = stopper(child);
  const events = eventHub();
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      void stop('SIGKILL');
      reject(new Error(`${entry} ${why}: ${output.slice(-4000)}`));
    };
    const timer = setTimeout(() => fail(`printed no ready line within ${timeoutMs} ms`), timeoutMs);
    const early = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      fail(`exited (${code ?? signal}) before it was ready`);
    };
    child.once('exit', early);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith(EVENT_PREFIX)) return events.publish(JSON.parse(line.slice(EVENT_PREFIX.length)));
      if (!line.startsWith(READY_PREFIX)) {
        output += `${line}\n`;
        return;
      }
      clearTimeout(timer);
      child.removeListener('exit', early);
      const ready = JSON.parse(line.slice(READY_PREFIX.length)) as T;
      resolve({ child, ready, output: () => output, nextEvent: events.next, stop });
    });
  });
}
