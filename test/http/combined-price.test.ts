import { expect } from 'chai';
import fc from 'fast-check';
import { BACKENDS } from '../support/backends';
import { type DEPTH_CREDITS, draftJob, EXTENDED_REGISTRY, MAX_SOURCES, NO_TOPIC } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { isFinal, pollJob } from '../support/job-polling';
import { submitJob } from '../support/job-submission';
import { callOk, connectMcp, OutputChecker } from '../support/mcp-client';

/*
 * The template trial's draftReport (test/support/extra-operations.ts): the credits of its depth plus 1 per
 * source URL (2 to 22), its input the whole body and its key in the Idempotency-Key header. Published equals
 * charged for any input: the charge is computed here from x-cost's machine-readable terms alone, never from
 * the rule's code, and compared with what the connector charged, on both backends and both billing modes.
 */

type Depth = keyof typeof DEPTH_CREDITS;
type Draft = { topic: string; depth: Depth; sources: string[] };

const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/source/${i}`);
const draftOf = (depth: Depth, n: number): Draft => ({ topic: 'tides', depth, sources: urls(n) });
/** The extended registry's draftReport, as the submission helpers take it. */
const DRAFT = { operationId: draftJob.operationId, operations: EXTENDED_REGISTRY.operations };

/** A term of a combined x-cost, as published. */
type Term = { kind: string; field: string; table?: Record<string, number>; per_unit?: number; min: number; max: number };

/** What the published terms say `input` costs: a client's reading of x-cost, independent of the rule's code. */
function publishedCharge(cost: { terms: Term[] }, input: Record<string, unknown>): number {
  return cost.terms.reduce((sum, term) => {
    const value = input[term.field.replace(/^input\./, '')];
    if (term.kind === 'table') return sum + term.table![String(value)];
    if (term.kind === 'per-unit') return sum + term.per_unit! * (Array.isArray(value) ? value.length : Number(value));
    throw new Error(`a term of kind ${term.kind} is not read here`);
  }, 0);
}

for (const backend of BACKENDS) {
  for (const billing of ['metered', 'prepaid'] as const) {
    describe(`draftReport, a combined price and a top-level body [${backend}, ${billing}]`, function () {
      this.timeout(120_000);
      let c: ConnectorUnderTest;
      let cost: { kind: string; terms: Term[]; min: number; max: number };
      before(async () => {
        c = await startConnector(
          backend,
          { BILLING_MODE: billing, DAILY_CREDIT_LIMIT: '100000' },
          { operations: EXTENDED_REGISTRY.operations },
        );
        const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
        cost = document.paths['/v1/drafts'].post['x-cost'];
      });
      after(async () => c?.close());

      /** A fresh subject with a token, funded in prepaid mode. */
      const person = async () => {
        const subject = newSubject();
        if (billing === 'prepaid') {
          const grant = await c.call('POST', '/v1/link/credits', {
            body: { subject, credits: 10_000, grant_id: newKey() },
            headers: { 'x-link-secret': c.config.linkSecret },
          });
          expect(grant.status, grant.text).to.equal(201);
        }
        return c.link(subject);
      };
      /**
       * The usage once every job in `ids` has ended: in prepaid billing `credits_spent` leaves out what open holds
       * keep aside, so read while a job still runs it would lack that job's price.
       */
      const usageOnceEnded = async (token: string, ids: string[]) => {
        const ended = await Promise.all(ids.map((id) => pollJob(c, token, id, isFinal, 30_000)));
        expect(ended.map((job) => job.status)).to.deep.equal(ids.map(() => 'succeeded'));
        return (await c.call('GET', '/v1/me', { token })).body.usage;
      };

      it('any depth and 0 to 16 sources is charged what x-cost’s terms say, within its published 2 to 22, once per key', async () => {
        expect(cost).to.include({ kind: 'combined', min: 2, max: 22 });
        const token = await person();
        let spent = 0;
        const ids: string[] = [];
        await fc.assert(
          fc.asyncProperty(fc.constantFrom<Depth>('quick', 'deep'), fc.integer({ min: 0, max: MAX_SOURCES }), async (depth, n) => {
            const input = draftOf(depth, n);
            const accepted = await submitJob(c, token, { ...DRAFT, input });
            expect(accepted.status, accepted.text).to.equal(202);
            const expected = publishedCharge(cost, input);
            expect(accepted.body.cost, `${depth}, ${n} sources`).to.equal(expected).and.to.be.within(cost.min, cost.max);
            spent += expected;
            ids.push(accepted.body.id);
          }),
          { numRuns: 12, seed: 46 },
        );
        expect(await usageOnceEnded(token, ids)).to.deep.include({ jobs_charged: ids.length, credits_spent: spent });
      });

      it('the ends of the range are charged exactly: quick with no source 2, deep with 16 sources 22; 17 sources or another depth is a 400 and nothing is charged', async () => {
        const token = await person();
        const least = await submitJob(c, token, { ...DRAFT, input: draftOf('quick', 0) });
        expect(least.body.cost).to.equal(2);
        const most = await submitJob(c, token, { ...DRAFT, input: draftOf('deep', MAX_SOURCES) });
        expect(most.body.cost).to.equal(22);
        expect((await submitJob(c, token, { ...DRAFT, input: draftOf('deep', MAX_SOURCES + 1) })).status).to.equal(400);
        expect((await submitJob(c, token, { ...DRAFT, input: { ...draftOf('quick', 1), depth: 'epic' } })).status).to.equal(400);
        expect(await usageOnceEnded(token, [least.body.id, most.body.id])).to.deep.include({ jobs_charged: 2, credits_spent: 24 });
      });
    });
  }

  describe(`draftReport's top-level body over HTTP and MCP [${backend}]`, function () {
    this.timeout(120_000);
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, {}, { operations: EXTENDED_REGISTRY.operations });
    });
    after(async () => c?.close());
    const usage = async (token: string) => (await c.call('GET', '/v1/me', { token })).body.usage;

    it('/openapi.json takes the input itself as the body, the key in the Idempotency-Key header or the idempotency_key query parameter', async () => {
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      const operation = document.paths['/v1/drafts'].post;
      const body = operation.requestBody.content['application/json'].schema;
      expect(body.properties).to.have.all.keys('topic', 'depth', 'sources');
      expect(operation.parameters.map((p: any) => [p.in, p.name])).to.deep.equal([
        ['header', 'Idempotency-Key'],
        ['query', 'idempotency_key'],
      ]);
      const llms = await (await fetch(`${c.baseUrl}/llms.txt`)).text();
      expect(llms).to.contain(
        'Needs an idempotency key (Idempotency-Key header or idempotency_key query parameter). The body is the input itself',
      );
    });

    it('a replay with the same key and body is the same job, uncharged; the same key with another body is a 422; the key as a query parameter works; no key is a 400', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const input = draftOf('deep', 2);
      const first = await submitJob(c, token, { ...DRAFT, input, key });
      expect(first.status, first.text).to.equal(202);
      expect(first.body).to.include({ operation: 'draftReport', cost: 8 });
      expect(first.body.input).to.deep.equal(input);
      const again = await submitJob(c, token, { ...DRAFT, input, key });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.id).to.equal(first.body.id);
      expect((await submitJob(c, token, { ...DRAFT, input: draftOf('deep', 3), key })).status).to.equal(422);
      const byQuery = await submitJob(c, token, { ...DRAFT, input, key: null, body: { idempotency_key: key } });
      expect(byQuery.body.id, 'the query parameter carries the same key').to.equal(first.body.id);
      const keyless = await submitJob(c, token, { ...DRAFT, input, key: null });
      expect(keyless.status).to.equal(400);
      expect(keyless.body.errors[0].message).to.equal('send an Idempotency-Key header or an idempotency_key query parameter');
      expect(await usage(token)).to.deep.include({ jobs_charged: 1, credits_spent: 8 });
    });

    it('the job reads its sources with progress per source and succeeds; a topic without words fails with its JobError and is refunded', async () => {
      const token = await c.link(newSubject());
      const done = await pollJob(c, token, (await submitJob(c, token, { ...DRAFT, input: draftOf('quick', 3) })).body.id, isFinal, 30_000);
      expect(done).to.deep.include({ status: 'succeeded', cost: 5 });
      expect(done.result.notes).to.have.length(3);
      expect(done.progress).to.include({ percent: 100, message: 'Source 3 of 3 read.' });
      const failed = await submitJob(c, token, { ...DRAFT, input: { ...draftOf('quick', 0), topic: '42!' } });
      expect(await pollJob(c, token, failed.body.id, isFinal, 30_000)).to.deep.include({
        status: 'failed',
        error: { message: NO_TOPIC },
        refunded_credits: 2,
      });
    });

    it('over MCP, draft_report takes the input’s fields and an idempotency_key argument; the same key over REST answers the same job, charged once', async () => {
      const subject = newSubject();
      const token = await c.link(subject);
      const client = await connectMcp(`${c.baseUrl}/mcp`, token, '2026-07-28');
      try {
        const { tools } = await client.listTools();
        const tool = tools.find((candidate) => candidate.name === 'draft_report')!;
        expect(Object.keys(tool.inputSchema.properties ?? {})).to.have.members(['idempotency_key', 'topic', 'depth', 'sources']);
        expect(tool.inputSchema.required).to.have.members(['idempotency_key', 'topic', 'depth', 'sources']);
        const key = newKey();
        const input = draftOf('deep', 4);
        const job = await callOk(client, new OutputChecker(tools), 'draft_report', { ...input, idempotency_key: key });
        expect(job).to.include({ operation: 'draftReport', cost: 10 });
        expect(job.input).to.deep.equal(input);
        const rest = await submitJob(c, token, { ...DRAFT, input, key });
        expect(rest.headers.get('idempotent-replayed')).to.equal('true');
        expect(rest.body.id).to.equal(job.id);
        expect(await usage(token)).to.deep.include({ jobs_charged: 1, credits_spent: 10 });
      } finally {
        await client.close();
      }
    });
  });
}
