import { expect } from 'chai';
import { maximalSize } from '../../doctor/response-size';
import { BACKENDS } from '../support/backends';
import { EXTENDED_REGISTRY, MAX_TRANSLATION, PARTIAL_TAIL, translateJob, UNSUPPORTED_LANGUAGE } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { isFinal, pollJob } from '../support/job-polling';
import { submitJob } from '../support/job-submission';
import { waitFor } from '../testkit/wait-for';

/** GPT Actions' limit on an answer, in characters. */
const MAX_ANSWER = 100_000;

/*
 * The template trial of issue 35 as a test: the paid translateDocument a user writes from the guide (3 credits
 * per started 1,000 characters, settings of its own, progress per chunk, a JobError on a valid input), served
 * beside the shipped registry, through REST on both backends. The MCP tools, the descriptions, the doctor and
 * the settings checks run over the same registry in their own suites.
 */
for (const backend of BACKENDS) {
  describe(`the template trial: a paid translation priced by length [${backend}]`, function () {
    this.timeout(120_000);
    let c: ConnectorUnderTest;
    before(async () => {
      // Chunks of 100 characters at 40 ms each: a 20,000-character text runs 8 s, long enough to cancel.
      c = await startConnector(
        backend,
        { TRANSLATE_CHUNK_CHARACTERS: '100', TRANSLATE_CHUNK_MS: '40' },
        { operations: EXTENDED_REGISTRY.operations },
      );
    });
    after(async () => c?.close());

    /** The translation operation of the extended registry, as the job helpers take it. */
    const translation = { operationId: translateJob.operationId, operations: EXTENDED_REGISTRY.operations };
    const usage = async (token: string) => (await c.call('GET', '/v1/me', { token })).body.usage;

    it('publishes its rule and range in x-cost, and its description states the price once', async () => {
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      const operation = document.paths['/v1/translations'].post;
      const text = 'Costs 3 credits per started 1,000 characters of input.text, so 3 to 60 credits.';
      expect(operation['x-cost']).to.deep.equal({
        kind: 'per-length',
        per_unit: 3,
        unit: '1000 characters',
        field: 'input.text',
        measure: 'characters',
        block: 1000,
        min_units: 1,
        max_units: 20,
        text,
        min: 3,
        max: 60,
        cancel_charge: 'progress',
      });
      expect(operation.description.split(text)).to.have.length(2);
      expect(operation.description.length).to.be.at.most(300);
    });

    it('charges 3 credits per started 1,000 characters at both ends of its range and between (1 → 3, 1,000 → 3, 1,001 → 6, 20,000 → 60, 20,000 emoji → 60), and refuses 20,001 with 400', async () => {
      const cases: Array<[string, number]> = [
        ['x', 3],
        ['x'.repeat(1000), 3],
        ['x'.repeat(1001), 6],
        ['x'.repeat(MAX_TRANSLATION), 60],
        ['😀'.repeat(MAX_TRANSLATION), 60],
      ];
      for (const [text, cost] of cases) {
        const token = await c.link(newSubject());
        const accepted = await submitJob(c, token, { ...translation, input: { text, target_language: 'de' } });
        expect(accepted.status, accepted.text.slice(0, 300)).to.equal(202);
        expect(accepted.body.cost, `${[...text].length} characters`).to.equal(cost);
        expect(await usage(token)).to.deep.equal({ jobs_charged: 1, credits_spent: cost, credits_refunded: 0 });
      }
      const token = await c.link(newSubject());
      expect(
        (await submitJob(c, token, { ...translation, input: { text: 'x'.repeat(MAX_TRANSLATION + 1), target_language: 'de' } })).status,
      ).to.equal(400);
      expect(await usage(token)).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
    });

    it('its declared example succeeds, telling progress per chunk of its own setting (100 characters), and a retry with the key is the same job, charged once', async () => {
      const token = await c.link(newSubject());
      const input = { ...translateJob.example!, text: 'y'.repeat(450) };
      const key = newKey();
      const first = await submitJob(c, token, { ...translation, input: input, key });
      const job = await pollJob(c, token, first.body.id, isFinal, 30_000);
      expect(job).to.deep.include({ status: 'succeeded', cost: 3, result: { target_language: 'fr', translated: input.text, chunks: 5 } });
      expect(job.progress).to.include({ percent: 100, message: 'Chunk 5 of 5 translated.' });
      const again = await submitJob(c, token, { ...translation, input: input, key });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.id).to.equal(first.body.id);
      expect((await submitJob(c, token, { ...translation, input: { ...input, target_language: 'it' }, key })).status).to.equal(422);
      expect(await usage(token)).to.deep.equal({ jobs_charged: 1, credits_spent: 3, credits_refunded: 0 });
    });

    it('a running translation shows the chunks translated so far as its partial result, growing while it runs, and its result replaces it', async () => {
      const token = await c.link(newSubject());
      // 100-character chunks of distinct letters, so the tail says which chunks are done.
      const text = Array.from({ length: 30 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(100)).join('');
      const accepted = await submitJob(c, token, { ...translation, input: { text, target_language: 'de' } });
      expect(accepted.body.partial, 'queued: nothing yet').to.equal(null);
      const seen: number[] = [];
      await pollJob(c, token, accepted.body.id, (job) => {
        if (job.status === 'running' && job.partial) {
          const { chunks_done, chunks, translated_tail } = job.partial;
          expect(chunks).to.equal(30);
          expect(translated_tail).to.equal(text.slice(0, chunks_done * 100).slice(-PARTIAL_TAIL));
          if (seen.at(-1) !== chunks_done) seen.push(chunks_done);
        }
        return seen.length >= 2;
      });
      expect(seen[1], 'a later read shows more chunks').to.be.above(seen[0]);
      const ended = await pollJob(c, token, accepted.body.id, isFinal, 30_000);
      expect(ended).to.deep.include({
        status: 'succeeded',
        partial: null,
        result: { target_language: 'de', translated: text, chunks: 30 },
      });
      const listed = (await c.call('GET', '/v1/jobs?limit=5', { token })).body.items;
      expect(listed.map((job: { partial: unknown }) => job.partial)).to.deep.equal([null]);
    });

    it("publishes the partial result with the job in /openapi.json: Job.partial is the translation's schema or null, JobSummary.partial only null", async () => {
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      const { Job, JobSummary } = document.components.schemas;
      expect(Job.required).to.include('partial');
      const shown = JSON.stringify(Job.properties.partial);
      for (const field of ['chunks_done', 'chunks', 'translated_tail']) expect(shown).to.include(`"${field}"`);
      expect(shown).to.include(`"maxLength":${PARTIAL_TAIL}`);
      expect(JobSummary.properties.partial).to.include({ type: 'null' });
    });

    it('a translation canceled while it runs ends canceled with no partial result shown', async () => {
      const token = await c.link(newSubject());
      const accepted = await submitJob(c, token, { ...translation, input: { text: 'q'.repeat(MAX_TRANSLATION), target_language: 'it' } });
      const running = await pollJob(c, token, accepted.body.id, (job) => job.partial !== null && job.partial !== undefined);
      expect(running.partial.chunks_done).to.be.at.least(1);
      expect((await c.call('DELETE', `/v1/jobs/${accepted.body.id}`, { token })).status).to.equal(202);
      expect(await pollJob(c, token, accepted.body.id, isFinal, 30_000)).to.deep.include({ status: 'canceled', partial: null });
    });

    it('a valid input the work cannot do (Latin) fails with its JobError, once, and is refunded', async () => {
      const token = await c.link(newSubject());
      const accepted = await submitJob(c, token, { ...translation, input: { text: 'Salve.', target_language: 'la' } });
      expect(accepted.status).to.equal(202);
      expect(await pollJob(c, token, accepted.body.id, isFinal, 30_000)).to.deep.include({
        status: 'failed',
        attempts: 1,
        error: { message: UNSUPPORTED_LANGUAGE },
        refunded_credits: 3,
      });
      expect(await usage(token)).to.deep.equal({ jobs_charged: 1, credits_spent: 0, credits_refunded: 3 });
    });

    it('a running translation canceled midway stops between chunks and is refunded all but the share its last progress report says was done', async () => {
      const token = await c.link(newSubject());
      const accepted = await submitJob(c, token, { ...translation, input: { text: 'z'.repeat(MAX_TRANSLATION), target_language: 'es' } });
      await pollJob(c, token, accepted.body.id, (job) => (job.progress?.percent ?? 0) > 0);
      const stopping = await c.call('DELETE', `/v1/jobs/${accepted.body.id}`, { token });
      expect(stopping.status).to.equal(202);
      const ended = await pollJob(c, token, accepted.body.id, isFinal, 30_000);
      expect(ended.progress.percent).to.be.above(0).and.below(100);
      // The translation declares no cancelCharge: the default keeps the price times the percent, rounded up.
      const kept = Math.ceil((60 * ended.progress.percent) / 100);
      expect(ended).to.include({ status: 'canceled', refunded_credits: 60 - kept, result: null });
      expect(await usage(token)).to.deep.equal({ jobs_charged: 1, credits_spent: kept, credits_refunded: 60 - kept });
    });
  });

  describe(`the template trial: a page of 100 maximal translations [${backend}]`, function () {
    this.timeout(180_000);
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(
        backend,
        { TRANSLATE_CHUNK_CHARACTERS: '5000', WORKER_CONCURRENCY: '8' },
        { operations: EXTENDED_REGISTRY.operations },
      );
    });
    after(async () => c?.close());

    it('GET /v1/jobs?limit=100 of 100 translations of 20,000 characters (emoji, quotes, letters) stays under 100,000 characters and under the size the doctor computes; the same jobs read whole are over 40 times that', async () => {
      const token = await c.link(newSubject());
      const characters = ['😀', '"', 'x', '\n'];
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) {
        const text = characters[i % characters.length].repeat(MAX_TRANSLATION);
        const accepted = await c.call('POST', '/v1/translations', {
          token,
          body: { input: { text, target_language: 'de' } },
          headers: { 'idempotency-key': newKey() },
        });
        expect(accepted.status).to.equal(202);
        ids.push(accepted.body.id);
      }
      await waitFor(
        async () => {
          const page = await c.call('GET', '/v1/jobs?limit=100', { token });
          return page.body.items.every((job: { status: string }) => job.status === 'succeeded');
        },
        { what: 'the 100 translations to succeed', timeoutMs: 120_000 },
      );
      const page = await c.call('GET', '/v1/jobs?limit=100', { token });
      expect(page.body.items).to.have.length(100);
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      const bound = maximalSize(document, document.components.schemas.JobPage, 100);
      expect('length' in bound && bound.length, JSON.stringify(bound))
        .to.be.a('number')
        .below(MAX_ANSWER);
      expect(page.text.length).to.be.below(MAX_ANSWER);
      // Emoji are two UTF-16 units each: the page is under the limit counted either way.
      expect([...page.text].length).to.be.at.most((bound as { length: number }).length);
      let whole = 0;
      for (const id of ids) whole += (await c.call('GET', `/v1/jobs/${id}`, { token })).text.length;
      expect(whole).to.be.above(40 * page.text.length);
    });
  });
}
