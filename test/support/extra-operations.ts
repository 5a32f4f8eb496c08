import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import * as z from 'zod';
import { pageCard } from '../../shared/contract/cards/page-card';
import { bearerOperation, type Operation } from '../../shared/contract/operations/operation';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { JobError } from '../../shared/domain/jobs/job-error';
import { combinedPrice, fixedPrice, perLength, perUnit, priceTable } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { intInRange } from '../../shared/platform/config/validators';

/*
 * Operations a template user might add, as docs/building-operations.md tells them to. They exist only in the
 * registries tests build: the registry-wide assertions run over them as well as over the real registry, so
 * that an assertion that only holds for the placeholders shows up here, not when a user adds an operation.
 */

/** A free operation: echoes a note with its caller. */
export const echoNote = bearerOperation({
  operationId: 'echoNote',
  method: 'post',
  path: '/v1/echo',
  summary: 'Echo a note',
  description: 'Repeats the note it is given, for testing that one registry entry reaches every face. Free.',
  published: true,
  consequential: false,
  requestBody: z.strictObject({ note: z.string().min(1).max(50) }),
  responses: {
    200: {
      description: 'The note, with who sent it.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['note', 'subject'],
        properties: { note: { type: 'string' }, subject: { type: 'string' } },
      },
    },
  },
  errors: [400, 401, 429, 500],
  handle: async (request) => ({ status: 200, body: { note: request.body.note, subject: request.principal.subject } }),
});

/** The message a word-count job fails with when its text has no word. */
export const NO_WORDS = 'The text has no words to count.';

/** countWords' own limits per subject: 20 calls a minute, and 30 credits (10 counts) a UTC day. */
export const COUNT_WORDS_LIMITS = { perMinute: 20, dailyCredits: 30 } as const;

/**
 * A paid asynchronous operation with its own processor, declared with the builder: counts words, 3 credits,
 * with limits of its own.
 */
export const countWords = paidOperation({
  job: paidJob({
    operationId: 'countWords',
    input: z.strictObject({ text: z.string().min(1).max(2000).describe('The text to count.') }),
    result: z.strictObject({ words: z.int().min(1).max(2000) }),
    example: { text: 'Count these four words.' },
    // Its failures keep their charge: the one operation the tests see with refunds of failures turned off.
    refundOnFailure: false,
    processor: () => async (input) => {
      const words = input.text.match(/\p{L}+/gu) ?? [];
      if (words.length === 0) throw new JobError(NO_WORDS, { retryable: false });
      return { words: words.length };
    },
  }),
  path: '/v1/word-counts',
  summary: 'Count the words of a text (3 credits)',
  description:
    'Counts the words of a text the person gives you. Costs 3 credits, charged once when accepted: ask the ' +
    'person first. Send an idempotency key; a retry with it is never charged again. Answers 202: poll getJob.',
  price: fixedPrice(3),
  noun: 'count',
  // Its own limits, on top of the connector's: the operation the tests see limited per subject.
  limits: COUNT_WORDS_LIMITS,
});

/** The languages a translation may ask for; Latin is accepted by the schema but not by the work. */
export const LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'la'] as const;

/** The message a translation into a language the work cannot do fails with. */
export const UNSUPPORTED_LANGUAGE = 'Translating into Latin is not supported yet; nothing was translated.';

/** The longest text a translation takes, and how many characters one credit block holds. */
export const MAX_TRANSLATION = 20_000;

/** The most chunks a translation is cut into: 20,000 characters at the smallest chunk setting, 100. */
export const MAX_CHUNKS = MAX_TRANSLATION / 100;

/** The translation's own event: one per chunk translated, declared once with zod (docs/building-operations.md). */
export const TRANSLATION_CHUNKED = {
  description: 'A chunk of a translation was translated: its number, of how many, and into which language.',
  data: z.strictObject({
    chunk: z.int().min(1).max(MAX_CHUNKS),
    chunks: z.int().min(1).max(MAX_CHUNKS),
    target_language: z.enum(LANGUAGES),
  }),
};

/** How much of the text translated so far a translation's partial result shows: its last characters. */
export const PARTIAL_TAIL = 2000;

/** What a translation publishes while it runs: the chunks done, of how many, and the end of the text so far. */
export const TRANSLATION_SO_FAR = z.strictObject({
  chunks_done: z.int().min(1).max(MAX_TRANSLATION),
  chunks: z.int().min(1).max(MAX_TRANSLATION),
  translated_tail: z.string().max(PARTIAL_TAIL).describe(`The last ${PARTIAL_TAIL} characters translated so far.`),
});

/**
 * The template trial as a user writes it from docs/building-operations.md: a paid translation priced per
 * started 1,000 characters (3 credits each, 1 to 20 blocks), with settings of its own (the chunk size its
 * progress is told in, and a pretend delay per chunk), progress, a partial result (the chunks translated so
 * far) and an event of its own (`translation.chunked`) per chunk, a `JobError` for a valid input the work
 * cannot do (Latin), and a declared example that succeeds. Its "translation" keeps the text as it is.
 */
export const translateJob = paidJob({
  operationId: 'translateDocument',
  input: z.strictObject({
    text: z.string().min(1).max(MAX_TRANSLATION).describe('The text to translate, up to 20,000 characters.'),
    target_language: z.enum(LANGUAGES).describe('The language to translate into (ISO 639-1).'),
  }),
  result: z.strictObject({
    target_language: z.enum(LANGUAGES),
    translated: z.string().max(MAX_TRANSLATION),
    chunks: z.int().min(1).max(MAX_TRANSLATION),
  }),
  partial: TRANSLATION_SO_FAR,
  example: { text: 'Good morning, and thank you for the flowers.', target_language: 'fr' },
  settings: {
    TRANSLATE_CHUNK_CHARACTERS: intInRange(100, 5000)({ default: 1000, desc: 'characters per chunk the translation tells progress for' }),
    TRANSLATE_CHUNK_MS: intInRange(0, 60_000)({ default: 0, desc: 'pretend work per chunk, in milliseconds' }),
  },
  events: { 'translation.chunked': TRANSLATION_CHUNKED },
  processor:
    (own) =>
    async ({ text, target_language }, { progress, partial, signal, emit }) => {
      if (target_language === 'la') throw new JobError(UNSUPPORTED_LANGUAGE, { retryable: false });
      const points = [...text];
      const chunks = Math.ceil(points.length / own.TRANSLATE_CHUNK_CHARACTERS);
      for (let chunk = 1; chunk <= chunks; chunk++) {
        // Stops between chunks when the person cancels (or the time runs out).
        if (own.TRANSLATE_CHUNK_MS > 0) await delay(own.TRANSLATE_CHUNK_MS, undefined, { signal });
        signal.throwIfAborted();
        progress(Math.round((chunk * 100) / chunks), `Chunk ${chunk} of ${chunks} translated.`);
        const done = points.slice(0, chunk * own.TRANSLATE_CHUNK_CHARACTERS);
        partial({ chunks_done: chunk, chunks, translated_tail: done.slice(-PARTIAL_TAIL).join('') });
        await emit('translation.chunked', { chunk, chunks, target_language });
      }
      return { target_language, translated: text, chunks };
    },
});

/**
 * The translation's own MCP Apps card, as a user adds one: its page (`translation-card.html`, `.css` and
 * `-page.ts`, started with the card kit of cards/kit/) beside this file in `browser/`, bundled by the build and
 * the dev server like the job card.
 */
export const TRANSLATION_CARD = pageCard({
  uri: 'ui://connector/translation-card.html',
  name: 'Translation card',
  description: 'A translation as it goes: its language, progress and cost, the text once done; Cancel while it runs.',
  page: path.join(__dirname, 'browser', 'translation-card.html'),
});

/** `POST /v1/translations`: the trial's paid operation, shown in its own card. */
export const translateDocument = paidOperation({
  job: translateJob,
  path: '/v1/translations',
  summary: 'Translate a text (3 credits per 1,000 characters)',
  description:
    'Translates a text into another language, charged once when accepted: tell the ' +
    'person the price, ask first. Send an idempotency key; a retry is free. Answers 202: poll getJob.',
  price: perLength({ credits: 3, field: 'text', block: 1000, max: MAX_TRANSLATION / 1000 }),
  noun: 'translation',
  card: TRANSLATION_CARD,
});

/** The most source URLs a drafted report reads: 1 credit each. */
export const MAX_SOURCES = 16;

/** The credits of each depth of a drafted report. */
export const DEPTH_CREDITS = { quick: 2, deep: 6 } as const;

/** The message a report whose topic has no words fails with. */
export const NO_TOPIC = 'The topic has no words to write about.';

/**
 * The report as a seller writes it: its input is the whole body (the key in `Idempotency-Key`), its
 * price the credits of its depth plus 1 per source URL (2 to 22 credits), its progress told per source.
 */
export const draftJob = paidJob({
  operationId: 'draftReport',
  input: z.strictObject({
    topic: z.string().min(1).max(200).describe('What the report is about.'),
    depth: z.enum(['quick', 'deep']).describe('quick: 2 credits; deep: 6 credits.'),
    sources: z.array(z.url().max(500)).max(MAX_SOURCES).describe('Source URLs to read, 1 credit each.'),
  }),
  result: z.strictObject({
    topic: z.string().max(200),
    depth: z.enum(['quick', 'deep']),
    notes: z.array(z.string().max(600)).max(MAX_SOURCES),
  }),
  example: { topic: 'tides', depth: 'quick', sources: ['https://example.com/tides'] },
  processor:
    () =>
    async ({ topic, depth, sources }, { progress, signal }) => {
      if (!/\p{L}/u.test(topic)) throw new JobError(NO_TOPIC, { retryable: false });
      const notes: string[] = [];
      for (const [index, source] of sources.entries()) {
        signal.throwIfAborted();
        notes.push(`${topic}: read ${source}`);
        progress(Math.round(((index + 1) * 100) / sources.length), `Source ${index + 1} of ${sources.length} read.`);
      }
      return { topic, depth, notes };
    },
});

/** `POST /v1/drafts`: a combined price and a top-level body. */
export const draftReport = paidOperation({
  job: draftJob,
  path: '/v1/drafts',
  summary: 'Draft a report from sources (2 to 22 credits)',
  description: 'Drafts a report on a topic at a depth from the source URLs given. Ask the person first. Answers 202: poll getJob.',
  price: combinedPrice(
    priceTable('depth', DEPTH_CREDITS),
    perUnit({ credits: 1, unit: 'source URL', field: 'sources', min: 0, max: MAX_SOURCES }),
  ),
  body: 'top-level',
  noun: 'report',
});

/**
 * The extra operations: a free one and three paid asynchronous ones with processors of their own, one of them
 * with a combined price and its input as the whole body.
 */
export const EXTRA_OPERATIONS: readonly Operation[] = [echoNote, countWords, translateDocument, draftReport];

/** A registry the registry-wide assertions run over, with the name their tests give it. */
export interface NamedRegistry {
  name: string;
  operations: readonly Operation[];
}

/** The real registry, as shipped. */
export const SHIPPED_REGISTRY: NamedRegistry = { name: 'the registry', operations: OPERATIONS };

/**
 * `operations` with `added` at the end. An operation of `operations` that has the operationId or the method
 * and path of an added one is left out, so that a registry which already holds one of them (a user who added
 * the guide's example as printed) does not end up with two.
 */
export function withOperations(operations: readonly Operation[], added: readonly Operation[]): Operation[] {
  const clashes = (a: Operation, b: Operation) => a.operationId === b.operationId || (a.method === b.method && a.path === b.path);
  return [...operations.filter((operation) => !added.some((extra) => clashes(operation, extra))), ...added];
}

/** The real registry plus the extras: what a template user has after adding operations. */
export const EXTENDED_REGISTRY: NamedRegistry = {
  name: 'the registry with the extra operations',
  operations: withOperations(OPERATIONS, EXTRA_OPERATIONS),
};

/** Both registries: every registry-wide assertion runs over each. */
export const REGISTRIES: readonly NamedRegistry[] = [SHIPPED_REGISTRY, EXTENDED_REGISTRY];
