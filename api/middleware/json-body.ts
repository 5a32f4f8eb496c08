import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { bodyLimitOf, DEFAULT_BODY_LIMIT_BYTES } from '../../shared/contract/operations/body-limit';
import { UnsupportedMediaTypeError, ValidationError } from '../../shared/platform/errors/problems';
import { state } from '../http/locals';

/** The body parsers, one per limit in use (a registry has a few at most). */
const parsers = new Map<number, RequestHandler>();

function parserFor(limit: number): RequestHandler {
  let parser = parsers.get(limit);
  if (!parser) {
    parser = express.json({ limit, strict: true, type: 'application/json' });
    parsers.set(limit, parser);
  }
  return parser;
}

/**
 * Plain JSON: `application/json`, at most with the UTF-8 charset, written only in ways the body parser's
 * own content-type grammar accepts too (anything else goes through `req.is` and the body parser).
 */
const PLAIN_JSON = /^application\/json(?: *; *charset=(?:utf-8|"utf-8") *)?$/i;

/** JSON's insignificant whitespace, which may precede the first value. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the four whitespace bytes JSON (RFC 8259) allows
const LEADING_WHITESPACE = /^[\x20\x09\x0a\x0d]*/;

/**
 * Parses JSON bodies up to the matched operation's limit (64 KiB unless its schema allows a larger body, see
 * `bodyLimitOf`); any other body is a 415 before a byte of it is read.
 */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (!hasBody) return next();
  const plain = PLAIN_JSON.test(req.headers['content-type'] ?? '');
  if (!plain && !req.is('application/json')) return next(new UnsupportedMediaTypeError());
  const { operation } = state(res);
  const limit = operation ? bodyLimitOf(operation) : DEFAULT_BODY_LIMIT_BYTES;
  if (plain && readArrived(req, limit, next)) return;
  // A body not yet parsed out of the bytes that brought its head (a paid job whose admission was put off
  // until its claim reaches here in the same turn, docs/decisions/admission-in-the-claim.md): looked for
  // again on the loop's next turn, before the stream path.
  if (plain && !req.complete) {
    setImmediate(readArrivedOrParse, req, res, next, limit);
    return;
  }
  parserFor(limit)(req, res, next);
}

/** {@link readArrived}, else the body parser: a plain body's second look. */
function readArrivedOrParse(req: Request, res: Response, next: NextFunction, limit: number): void {
  if (!readArrived(req, limit, next)) parserFor(limit)(req, res, next);
}

/**
 * Reads a small plain JSON body that has already arrived in full, which is what a request behind an awaited
 * check usually is: it is taken from the request's buffer at once, without the body parser's stream
 * plumbing (listeners, a decoder, the size accounting the HTTP parser has already done). Returns false,
 * having read nothing, for every other body (chunked, encoded, over the limit, still arriving): the body
 * parser reads those, as it always has.
 */
function readArrived(req: Request, limit: number, next: NextFunction): boolean {
  const length = Number(req.headers['content-length']);
  if (!req.complete || req.readableLength !== length || length > limit) return false;
  if (req.headers['transfer-encoding'] !== undefined || req.headers['content-encoding'] !== undefined) return false;
  const chunks: Buffer[] = [];
  for (let chunk = req.read() as Buffer | null; chunk !== null; chunk = req.read() as Buffer | null) chunks.push(chunk);
  const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
  // The same answers as the body parser's strict mode: a byte-order mark is dropped, nothing left is an
  // empty object, and otherwise only an object or an array is a body.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const first = json.charAt(LEADING_WHITESPACE.exec(json)![0].length);
  try {
    if (json.length > 0 && first !== '{' && first !== '[') throw new SyntaxError('not an object or an array');
    req.body = json.length === 0 ? {} : JSON.parse(json);
  } catch {
    next(new ValidationError('The body is not valid JSON.'));
    return true;
  }
  next();
  return true;
}
