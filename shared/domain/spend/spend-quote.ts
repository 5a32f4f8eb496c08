import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '../../platform/secrets/key-ring';
import { canonicalJson } from '../../platform/util/canonical-json';

/** The longest a quote may live: the person answers within this or is asked again. */
export const MAX_QUOTE_TTL_MS = 10 * 60 * 1000;

/** What a person is asked to confirm: who spends, on which tool, for which input (idempotency key included), at what price. */
export interface SpendTerms {
  subject: string;
  tool: string;
  input: Record<string, unknown>;
  price: number;
}

/**
 * A quote as signed. The subject is kept only as a digest (the quote travels through the client, which can
 * read it), the input as the digest of its canonical JSON.
 */
export interface SpendQuote {
  /** SHA-256 of the subject. */
  sub: string;
  tool: string;
  /** SHA-256 of the input's canonical JSON. */
  input: string;
  price: number;
  /** Expiry, milliseconds since the epoch. */
  exp: number;
  nonce: string;
  /** What the person answers when the quote comes back: the confirmation itself, or their return from a top-up. */
  step: QuoteStep;
}

/** The question a quote was minted with. */
export type QuoteStep = 'confirm' | 'top_up';

/** Why a presented quote was refused. */
export type QuoteRefusal = 'malformed' | 'signature' | 'expired' | 'mismatch';

/** A presented quote's check: the quote, or why it was refused. */
export type QuoteCheck = { ok: true; quote: SpendQuote } | { ok: false; reason: QuoteRefusal };

const VERSION = 'q1';
const MAX_STATE_LENGTH = 2048;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

/** The digest a quote names its input by: the tool's arguments, key order ignored. */
export function inputDigest(input: Record<string, unknown>): string {
  return sha256(canonicalJson(input));
}

/**
 * Mints and checks spend quotes: `q1.<key id>.<payload>.<mac>`, an HMAC-SHA256 under the connector secret's
 * spend-quote key. Signed with the current secret; during a rotation a quote signed with the previous one
 * still verifies (its key id names it). The check is constant-time on the MAC and the terms.
 */
export class SpendQuotes {
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly keys: KeyRing,
    { ttlMs = MAX_QUOTE_TTL_MS, now = Date.now }: { ttlMs?: number; now?: () => number } = {},
  ) {
    this.ttlMs = Math.min(ttlMs, MAX_QUOTE_TTL_MS);
    this.now = now;
  }

  /** A fresh quote for `terms`, as the opaque string the client echoes back. */
  mint(terms: SpendTerms, step: QuoteStep): { quote: SpendQuote; state: string } {
    const quote: SpendQuote = {
      sub: sha256(terms.subject),
      tool: terms.tool,
      input: inputDigest(terms.input),
      price: terms.price,
      exp: this.now() + this.ttlMs,
      nonce: randomBytes(16).toString('base64url'),
      step,
    };
    const { keyId, spendQuoteKey } = this.keys.current;
    const signed = `${VERSION}.${keyId}.${Buffer.from(JSON.stringify(quote), 'utf8').toString('base64url')}`;
    return { quote, state: `${signed}.${createHmac('sha256', spendQuoteKey).update(signed).digest('base64url')}` };
  }

  /** The quote a state string carries, once its signature and expiry hold; never throws. */
  open(state: unknown): QuoteCheck {
    if (typeof state !== 'string' || state.length > MAX_STATE_LENGTH) return { ok: false, reason: 'malformed' };
    const parts = state.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) return { ok: false, reason: 'malformed' };
    const entry = this.keys.byKeyId(parts[1]!);
    if (!entry) return { ok: false, reason: 'signature' };
    // Compared as spelled: base64url without padding is the one spelling minted, so no other one verifies.
    const expected = Buffer.from(createHmac('sha256', entry.keys.spendQuoteKey).update(parts.slice(0, 3).join('.')).digest('base64url'));
    const given = Buffer.from(parts[3]!);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
    const quote = parseQuote(parts[2]!);
    if (!quote) return { ok: false, reason: 'malformed' };
    return quote.exp <= this.now() ? { ok: false, reason: 'expired' } : { ok: true, quote };
  }

  /** True when `quote` was minted for exactly `terms` (subject, tool, input and price), compared in constant time. */
  matches(quote: SpendQuote, terms: SpendTerms): boolean {
    const want = sha256(canonicalJson([sha256(terms.subject), terms.tool, inputDigest(terms.input), terms.price]));
    const got = sha256(canonicalJson([quote.sub, quote.tool, quote.input, quote.price]));
    return timingSafeEqual(Buffer.from(want), Buffer.from(got));
  }

  /** Milliseconds until `quote` expires (at least 1), how long its nonce must be remembered. */
  remainingMs(quote: SpendQuote): number {
    return Math.max(1, quote.exp - this.now());
  }
}

/** The signed payload, if it has exactly the quote's shape. */
function parseQuote(payload: string): SpendQuote | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const quote = value as SpendQuote;
  const fields = typeof value === 'object' && value !== null ? Object.keys(value).sort().join(',') : '';
  if (fields !== 'exp,input,nonce,price,step,sub,tool') return undefined;
  const strings = [quote.sub, quote.tool, quote.input, quote.nonce].every((field) => typeof field === 'string');
  const step = quote.step === 'confirm' || quote.step === 'top_up';
  return strings && step && Number.isSafeInteger(quote.exp) && Number.isSafeInteger(quote.price) ? quote : undefined;
}
