import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { registryProblems } from '../../shared/contract/operations/registry-rules';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { acceptedJob } from '../support/job-submission';
import { readMarkdown } from '../support/markdown';
import { WebhookReceiver } from '../support/webhook-receiver';
import { webhookEnv } from '../support/webhook-stands';
import { loadWorkedExample, variantSources, WORKED_EXAMPLE_PAGE } from './support/worked-example';

/*
 * "Events of your own" in docs/building-operations.md: the worked example's report job as that section prints
 * it, declaring and emitting `report.ready`, loaded in place of the worked example's job and checked as the
 * page says: it meets the registry's rules, and a real receiver gets the printed body once. That it type-checks
 * as printed (its emit typed by the declaration) is test/docs/printed-example-types.test.ts's.
 */

/** The body the section prints, with its placeholders (`job_…`, the subject, the timestamp) to fill in. */
function printedBody(): Record<string, any> {
  const block = readMarkdown(WORKED_EXAMPLE_PAGE).blocks.find((b) => b.info === 'json report-ready-body');
  if (!block) throw new Error('building-operations.md prints no report-ready-body block');
  return JSON.parse(block.code);
}

describe('"Events of your own" in docs/building-operations.md (the report job announcing report.ready)', function () {
  this.timeout(60_000);
  const files = variantSources('events-example');
  let example: ReturnType<typeof loadWorkedExample>;
  let operations: Operation[];
  before(() => {
    example = loadWorkedExample(files);
    operations = withOperations(OPERATIONS, example.operations);
  });
  after(() => example?.cleanup());

  it('the report job, loaded in place of the worked example’s, meets the registry’s rules', () => {
    expect(registryProblems(example.operations)).to.deep.equal([]);
  });

  for (const kind of BACKENDS) {
    describe(`over HTTP with a real receiver [${kind}]`, () => {
      let receiver: WebhookReceiver;
      let c: ConnectorUnderTest;
      before(async function () {
        this.timeout(60_000);
        receiver = await WebhookReceiver.start();
        c = await startConnector(kind, webhookEnv(receiver), { operations });
      });
      after(async () => {
        await receiver?.close();
        await c?.close();
      });

      it('a 3-page report on tides sends report.ready once, signed, with the body the page prints, and the catalogue lists it with its schema', async () => {
        const subject = newSubject();
        const token = await c.link(subject);
        const job = await acceptedJob(c, token, { operationId: 'createReport', operations, input: { topic: 'tides', pages: 3 } });
        await pollJob(c, token, job.id, inStatus('succeeded'));
        await receiver.next((p) => p?.type === 'job.succeeded' && p.data.id === job.id, 'job.succeeded');
        const ready = await receiver.next((p) => p?.type === 'report.ready' && p.data.job_id === job.id, 'report.ready');
        const printed = printedBody();
        expect(ready.payload).to.deep.equal({
          ...printed,
          timestamp: ready.payload.timestamp,
          data: { ...printed.data, job_id: job.id, subject },
        });
        expect(receiver.matching((p) => p?.type === 'report.ready' && p.data.job_id === job.id)).to.have.length(1);

        const catalogue = await c.call('GET', '/v1/link/event-types', { headers: { 'x-link-secret': c.config.linkSecret } });
        const entry = catalogue.body.event_types.find((e: { type: string }) => e.type === 'report.ready');
        expect(entry).to.deep.include({
          source: 'createReport',
          description: 'A report was written: its topic and how many sections it has.',
        });
        expect(entry.data_schema.required).to.have.members(['topic', 'sections', 'job_id', 'operation', 'subject']);
      });
    });
  }
});
