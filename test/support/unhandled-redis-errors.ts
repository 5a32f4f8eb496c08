// Root hooks, loaded for every run by .mocharc.json. An ioredis client without an 'error' listener prints each
// connection error as "[ioredis] Unhandled error event" with a stack: in practice a client some test left
// connected after its redis-server stopped, which then reconnects, and prints, through every later file. Such
// a line fails the run at its end, naming the last test that had begun when the first one appeared.
import type { Context } from 'mocha';

/** How ioredis starts the line it prints for an error event nobody listens to. */
const UNHANDLED_MARK = '[ioredis] Unhandled error event';

const seen: Array<{ after: string | undefined; line: string }> = [];
let lastBegun: string | undefined;

const print = console.error.bind(console);
console.error = (...args: unknown[]): void => {
  const first = typeof args[0] === 'string' ? args[0] : '';
  if (first.startsWith(UNHANDLED_MARK)) seen.push({ after: lastBegun, line: args.map((arg) => String(arg).split('\n')[0]).join(' ') });
  print(...args);
};

/** The hooks mocha picks up from a required file (`mochaHooks`). */
export const mochaHooks = {
  beforeEach(this: Context): void {
    lastBegun = this.currentTest?.fullTitle() ?? lastBegun;
  },
  afterAll(): void {
    if (seen.length === 0) return;
    const [first] = seen;
    const when = first.after === undefined ? 'before any test began' : `after "${first.after}" began`;
    throw new Error(
      `${seen.length} "${UNHANDLED_MARK}" line(s) were printed, the first ${when}: ${first.line}. ` +
        "Some ioredis client has no 'error' listener: end every client a test creates (and any handed to BullMQ, which never closes it) before its server stops.",
    );
  },
};
