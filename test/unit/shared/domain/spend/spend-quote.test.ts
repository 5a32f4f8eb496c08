import { expect } from 'chai';
import { inputSummary, MAX_SUMMARY_LENGTH } from '../../../../../api/mcp/input-summary';
import { askableOf } from '../../../../../api/mcp/spend-confirmation';
import { MemoryQuoteNonceStore } from '../../../../../shared/adapters/memory/memory-quote-nonce-store';
import { MAX_QUOTE_TTL_MS, SpendQuotes, type SpendTerms } from '../../../../../shared/domain/spend/spend-quote';
import { KeyRing } from '../../../../../shared/platform/secrets/key-ring';

const OLD = 'old-connector-secret-0123456789-abcdefghijklmnop';
const NEW = 'new-connector-secret-0123456789-abcdefghijklmnop';
const TERMS: SpendTerms = {
  subject: 'ada@example.com',
  tool: 'create_job',
  input: { input: { prompt: 'x' }, idempotency_key: 'k1' },
  price: 3,
};

describe('spend quotes', () => {
  it('a quote opens under its own secret, and under a ring whose previous secret signed it; a ring without that secret refuses it', () => {
    const { state } = new SpendQuotes(KeyRing.fromSecrets(OLD)).mint(TERMS, 'confirm');
    expect(new SpendQuotes(KeyRing.fromSecrets(OLD)).open(state).ok).to.equal(true);
    const rotated = new SpendQuotes(KeyRing.fromSecrets(NEW, OLD)).open(state);
    expect(rotated.ok && rotated.quote.price).to.equal(3);
    expect(new SpendQuotes(KeyRing.fromSecrets(NEW)).open(state)).to.deep.equal({ ok: false, reason: 'signature' });
  });

  it('a quote lives at most 10 minutes whatever TTL is asked, and is refused as expired from then on', () => {
    let now = 1_000_000;
    const quotes = new SpendQuotes(KeyRing.fromSecrets(NEW), { ttlMs: 60 * 60_000, now: () => now });
    const { quote, state } = quotes.mint(TERMS, 'confirm');
    expect(quote.exp - now).to.equal(MAX_QUOTE_TTL_MS);
    now += MAX_QUOTE_TTL_MS - 1;
    expect(quotes.open(state).ok).to.equal(true);
    expect(quotes.remainingMs(quote)).to.equal(1);
    now += 1;
    expect(quotes.open(state)).to.deep.equal({ ok: false, reason: 'expired' });
  });

  it('a quote matches exactly its subject, tool, input (key order ignored) and price, and no other', () => {
    const quotes = new SpendQuotes(KeyRing.fromSecrets(NEW));
    const { quote } = quotes.mint(TERMS, 'confirm');
    expect(quotes.matches(quote, { ...TERMS, input: { idempotency_key: 'k1', input: { prompt: 'x' } } })).to.equal(true);
    for (const other of [
      { ...TERMS, subject: 'bob@example.com' },
      { ...TERMS, tool: 'count_words' },
      { ...TERMS, input: { ...TERMS.input, idempotency_key: 'k2' } },
      { ...TERMS, price: 2 },
    ]) {
      expect(quotes.matches(quote, other), JSON.stringify(other)).to.equal(false);
    }
  });

  it('a changed payload, a changed MAC, an unknown version and anything not a quote are refused, never thrown', () => {
    const quotes = new SpendQuotes(KeyRing.fromSecrets(NEW));
    const { state } = quotes.mint(TERMS, 'confirm');
    const [version, keyId, payload, mac] = state.split('.');
    const free = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), price: 0 })).toString(
      'base64url',
    );
    expect(quotes.open(`${version}.${keyId}.${free}.${mac}`)).to.deep.equal({ ok: false, reason: 'signature' });
    expect(quotes.open(`${version}.${keyId}.${payload}.${mac!.slice(1)}`)).to.deep.equal({ ok: false, reason: 'signature' });
    expect(quotes.open(`q2.${keyId}.${payload}.${mac}`)).to.deep.equal({ ok: false, reason: 'malformed' });
    for (const junk of ['', 'a.b.c', 'x'.repeat(5000), 42, null]) expect(quotes.open(junk).ok).to.equal(false);
  });

  it('the memory nonce store keeps the first answer to a quote until the quote expires, whatever answer comes after', async () => {
    let now = 0;
    const nonces = new MemoryQuoteNonceStore(() => now);
    expect(await nonces.settle('n1', 'refused', 1000)).to.deep.equal({ answer: 'refused', first: true });
    expect(await nonces.settle('n1', 'accepted', 1000)).to.deep.equal({ answer: 'refused', first: false });
    expect(await nonces.settle('n2', 'accepted', 1000)).to.deep.equal({ answer: 'accepted', first: true });
    expect(await nonces.settle('n2', 'refused', 1000)).to.deep.equal({ answer: 'accepted', first: false });
    now = 1000;
    expect(await nonces.settle('n1', 'accepted', 1000)).to.deep.equal({ answer: 'accepted', first: true });
  });

  it('a quote verifies only in the spelling it was minted in: padded, standard base64 or re-cased MACs are refused', () => {
    const quotes = new SpendQuotes(KeyRing.fromSecrets('s'.repeat(40)));
    const { state } = quotes.mint({ subject: 'alice', tool: 'create_job', input: { a: 1 }, price: 2 }, 'confirm');
    const [version, keyId, payload, mac] = state.split('.');
    expect(quotes.open(state).ok).to.equal(true);
    const standard = Buffer.from(mac!, 'base64url').toString('base64');
    for (const spelling of [`${mac}=`, standard, `${mac}\n`]) {
      expect(quotes.open(`${version}.${keyId}.${payload}.${spelling}`), JSON.stringify(spelling)).to.deep.equal({
        ok: false,
        reason: 'signature',
      });
    }
  });
});

describe('what a confirmation shows and whom it can ask', () => {
  it('the input summary names each argument, cuts long text, hides the idempotency key and secret-like names, and stays bounded', () => {
    const summary = inputSummary({
      input: { text: 'é'.repeat(500), pages: 3, tags: ['a', 'b'] },
      idempotency_key: 'k-secret',
      api_token: 't',
    });
    expect(summary).to.contain('input: {text: "').and.contain('pages: 3').and.contain('tags: 2 items');
    expect(summary).to.not.contain('k-secret').and.not.contain('api_token');
    expect(summary.length).to.be.at.most(MAX_SUMMARY_LENGTH);
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field${i}`, 'value']));
    expect(inputSummary(many).length).to.equal(MAX_SUMMARY_LENGTH);
  });

  it('a 2026-07-28 client can be asked a form when it declares form or empty elicitation, a URL only when declared; a 2025-11-25 client never', () => {
    const envelope = (elicitation: unknown) => ({ 'io.modelcontextprotocol/clientCapabilities': { elicitation } });
    expect(askableOf(true, envelope({}))).to.deep.equal({ form: true, url: false });
    expect(askableOf(true, envelope({ form: {} }))).to.deep.equal({ form: true, url: false });
    expect(askableOf(true, envelope({ url: {} }))).to.deep.equal({ form: false, url: true });
    expect(askableOf(true, envelope({ form: {}, url: {} }))).to.deep.equal({ form: true, url: true });
    expect(askableOf(true, { 'io.modelcontextprotocol/clientCapabilities': {} })).to.deep.equal({ form: false, url: false });
    expect(askableOf(true, undefined)).to.deep.equal({ form: false, url: false });
    expect(askableOf(false, envelope({ form: {} }))).to.deep.equal({ form: false, url: false });
  });
});
