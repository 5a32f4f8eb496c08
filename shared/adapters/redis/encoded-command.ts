import { Command } from 'ioredis';

/**
 * An ioredis command written to the socket as one Buffer of RESP when every argument is a string of ASCII
 * characters (keys, ids, numbers: every script call the API makes), and as ioredis writes it otherwise.
 * ioredis's own `toWritable` measures every argument's bytes with a call of its own and leaves a string that
 * the socket encodes again; for the API's script calls that was the largest single cost of a replayed paid job
 * (docs/decisions/encoded-commands.md). The bytes are the same: the encoding is RESP's, argument by argument.
 */
export class EncodedCommand extends Command {
  override toWritable(socket: object): string | Buffer {
    return encodeAscii(this.name, this.args as ReadonlyArray<string | Buffer>) ?? super.toWritable(socket);
  }
}

/**
 * The command written straight into a Buffer of its exact size, when every argument is a string of ASCII
 * characters (a string's length is then its length in bytes): its size summed first, then each character
 * stored as its byte, with no string made on the way. Undefined otherwise. The strings a concatenation makes
 * (about 8 KB of a fresh paid job's 67) were collected under load with the requests waiting on Redis.
 */
function encodeAscii(name: string, args: ReadonlyArray<string | Buffer>): Buffer | undefined {
  let size = bulkSize(name) + 3 + digitCount(args.length + 1);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (typeof arg !== 'string') return undefined;
    size += bulkSize(arg);
  }
  const out = Buffer.allocUnsafe(size);
  out[0] = ASTERISK;
  let at = endLine(out, putNumber(out, 1, args.length + 1));
  at = putBulk(out, at, name);
  for (let i = 0; i < args.length && at >= 0; i++) at = putBulk(out, at, args[i] as string);
  return at < 0 ? undefined : out;
}

const ASTERISK = 0x2a;
const DOLLAR = 0x24;
const CR = 0x0d;
const LF = 0x0a;
const DIGIT_0 = 0x30;

/** The decimal digits of a length. */
function digitCount(n: number): number {
  let count = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) count++;
  return count;
}

/** The bytes of a bulk string of ASCII `text`: `$<length>\r\n<text>\r\n`. */
function bulkSize(text: string): number {
  return 1 + digitCount(text.length) + 2 + text.length + 2;
}

/** Writes `n`'s digits at `at`; answers where they end. */
function putNumber(out: Buffer, at: number, n: number): number {
  const end = at + digitCount(n);
  let rest = n;
  for (let i = end - 1; i >= at; i--) {
    out[i] = DIGIT_0 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return end;
}

function endLine(out: Buffer, at: number): number {
  out[at] = CR;
  out[at + 1] = LF;
  return at + 2;
}

/** Writes `text` as a bulk string at `at`; answers where it ends, or -1 at its first character beyond ASCII. */
function putBulk(out: Buffer, at: number, text: string): number {
  out[at] = DOLLAR;
  let next = endLine(out, putNumber(out, at + 1, text.length));
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return -1;
    out[next++] = code;
  }
  return endLine(out, next);
}
