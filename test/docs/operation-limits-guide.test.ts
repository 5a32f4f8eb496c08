import { expect } from 'chai';
import { operationLimitRules } from '../../doctor/limit-checks';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { modelDescription } from '../../shared/contract/operations/model-description';
import type { Operation } from '../../shared/contract/operations/operation';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS, publishedOperations } from '../../shared/contract/operations/registry';
import { registryProblems } from '../../shared/contract/operations/registry-rules';
import { type OperationLimits, publishedLimits } from '../../shared/domain/admission/operation-limits';
import type { PaidJob } from '../../shared/domain/jobs/processor';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { submitJob } from '../support/job-submission';
import { readMarkdown } from '../support/markdown';
import { loadWorkedExample, WORKED_EXAMPLE_PAGE } from './support/worked-example';

const SENTENCE = 'At most 10 calls a minute; at most 40 credits a day.';

/** The section's block: the description and limits it gives the worked example's report. */
function printedDeclaration(): { description: string; limits: OperationLimits } {
  const block = readMarkdown(WORKED_EXAMPLE_PAGE).blocks.find((candidate) => candidate.comment?.trim() === 'limits-example');
  expect(block, 'the <!-- limits-example --> block of docs/building-operations.md').to.not.equal(undefined);
  const code = block!.code;
  const text = code.slice(code.indexOf('description:'), code.indexOf('limits:'));
  const description = [...text.matchAll(/"([^"]*)"|'([^']*)'/g)].map((match) => match[1] ?? match[2]).join('');
  const limits = /limits: \{ perMinute: (\d+), dailyCredits: (\d+) \}/.exec(code);
  expect(limits, code).to.not.equal(null);
  return { description, limits: { perMinute: Number(limits![1]), dailyCredits: Number(limits![2]) } };
}

describe('docs/building-operations.md, "Limits of its own": the worked example’s report with the limits printed', function () {
  this.timeout(60_000);
  let example: ReturnType<typeof loadWorkedExample>;
  let limited: Operation;
  let declared: ReturnType<typeof printedDeclaration>;
  before(() => {
    example = loadWorkedExample();
    const report = example.operations.find((operation) => operation.operationId === 'createReport')!;
    declared = printedDeclaration();
    // Declared again as the section shows it: the rest as the worked example has it.
    limited = paidOperation({
      job: report.job as PaidJob,
      path: report.path,
      summary: report.summary,
      description: declared.description,
      price: report.price as never,
      noun: 'report',
      limits: declared.limits,
    });
  });
  after(() => example?.cleanup());

  it('meets every registry rule, and the description a model reads ends with the limits sentence the section quotes, within 300 characters', () => {
    expect(registryProblems([limited])).to.deep.equal([]);
    const composed = modelDescription(limited);
    expect(composed.endsWith(` ${SENTENCE}`), composed).to.equal(true);
    expect(composed.length).to.be.at.most(300);
  });

  it('what the section says /openapi.json and /llms.txt print is what they print, and the doctor passes it', () => {
    const page = readMarkdown(WORKED_EXAMPLE_PAGE).prose.join('\n').replace(/\s+/g, ' ');
    expect(page).to.include(`"x-limits":${JSON.stringify(publishedLimits(declared.limits))}`);
    expect(page).to.include(`"Limits per person: ${SENTENCE}"`);
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(publishedOperations([limited]), 'https://connector.example.com')));
    expect(operationLimitRules(document).map((result) => result.status)).to.deep.equal(['PASS', 'PASS']);
  });

  it('a cap of 8 warns on limits.price (a 5-page report costs 10); a cap of 1, below the lowest price, breaks the registry rule', () => {
    const capped = (dailyCredits: number) =>
      paidOperation({
        ...{ job: limited.job as PaidJob, path: limited.path, summary: limited.summary },
        description: declared.description,
        price: limited.price as never,
        limits: { dailyCredits },
      });
    const document = JSON.parse(JSON.stringify(buildOpenApiDocument(publishedOperations([capped(8)]), 'https://connector.example.com')));
    expect(operationLimitRules(document)[0].status).to.equal('WARN');
    expect(registryProblems([capped(1)])).to.deep.equal([
      'createReport: the daily cap of 1 credit is below the lowest price, 2: no job could ever be accepted',
    ]);
  });

  for (const backend of BACKENDS) {
    describe(`over HTTP [${backend}]`, () => {
      let c: ConnectorUnderTest;
      before(async () => {
        c = await startConnector(backend, {}, { operations: withOperations(OPERATIONS, [limited]) });
      });
      after(async () => c?.close());
      const report = (token: string, input: unknown) => submitJob(c, token, { operationId: 'createReport', input, operations: [limited] });

      it('four 5-page reports use the 40 credits of a day: the fifth answers 402 naming createReport and its reset; other operations still run', async () => {
        const token = await c.link(newSubject());
        for (let i = 0; i < 4; i++) expect((await report(token, { topic: 'tides', pages: 5 })).status).to.equal(202);
        const refused = await report(token, { topic: 'tides', pages: 1 });
        expect(refused.body).to.include({ type: 'urn:connector:problem:operation-budget-exhausted', operation: 'createReport', limit: 40 });
        expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
        expect((await submitJob(c, token)).status, 'the placeholder createJob').to.equal(202);
      });

      it('the 11th call in a minute answers 429 naming createReport; every answer lists its policy beside the subject’s', async () => {
        const token = await c.link(newSubject());
        for (let i = 0; i < 10; i++) {
          const answer = await report(token, { topic: 'tides', pages: 6 });
          expect(answer.status).to.equal(400);
          expect(answer.headers.get('ratelimit-policy')).to.equal('"subject";q=100000;w=60, "op-createReport";q=10;w=60');
        }
        const limitedAnswer = await report(token, { topic: 'tides', pages: 1 });
        expect(limitedAnswer.status).to.equal(429);
        expect(limitedAnswer.body).to.include({ operation: 'createReport', limit: 10, window_seconds: 60 });
        expect(limitedAnswer.body.detail).to.match(/^Too many calls of createReport: at most 10 a minute per person\./);
      });
    });
  }
});
