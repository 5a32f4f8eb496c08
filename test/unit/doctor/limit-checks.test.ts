import { expect } from 'chai';
import type { CheckResult } from '../../../doctor/check-result';
import { operationLimitRules } from '../../../doctor/limit-checks';
import { buildOpenApiDocument } from '../../../shared/contract/description/openapi-document';
import { publishedOperations } from '../../../shared/contract/operations/registry';
import { EXTENDED_REGISTRY, SHIPPED_REGISTRY } from '../../support/extra-operations';

/** The document a registry publishes, as a platform reads it (JSON), fresh for each test to break. */
const documentOf = (operations = EXTENDED_REGISTRY.operations) =>
  JSON.parse(JSON.stringify(buildOpenApiDocument(publishedOperations(operations), 'https://connector.example.com')));

/** The operation of the document that publishes limits (countWords of the template trial: 20 a minute, 30 credits a day). */
const limited = (document: Record<string, any>) => document.paths['/v1/word-counts'].post;

const line = (results: CheckResult[], id: string) => results.find((result) => result.id === id);

describe('doctor/limit-checks: the rules of operations’ own limits', () => {
  it('the shipped registry declares none: one PASS line says so', () => {
    expect(operationLimitRules(documentOf(SHIPPED_REGISTRY.operations))).to.deep.equal([
      { id: 'limits.price', status: 'PASS', message: 'no operation declares limits of its own' },
    ]);
  });

  it('the template trial passes: its cap takes its largest job, its description states the limits, and it is within the connector’s', () => {
    const results = operationLimitRules(documentOf(), { perMinute: 120, dailyCredits: null });
    expect(results.map((result) => [result.id, result.status])).to.deep.equal([
      ['limits.price', 'PASS'],
      ['limits.described', 'PASS'],
      ['limits.connector', 'PASS'],
    ]);
  });

  it('a daily cap below the lowest price fails naming the operation; below the highest only warns', () => {
    const document = documentOf();
    limited(document)['x-limits'].daily_credits = 2;
    expect(line(operationLimitRules(document), 'limits.price')).to.deep.equal({
      id: 'limits.price',
      status: 'FAIL',
      message: 'POST /v1/word-counts: its daily cap of 2 credits is below its lowest price, 3',
    });
    const translation = document.paths['/v1/translations'].post;
    translation['x-limits'] = { daily_credits: 30, text: 'At most 30 credits a day.' };
    translation.description += ' At most 30 credits a day.';
    limited(document)['x-limits'].daily_credits = 30;
    const price = line(operationLimitRules(document), 'limits.price')!;
    expect([price.status, price.message]).to.deep.equal([
      'WARN',
      'POST /v1/translations: jobs above its daily cap of 30 credits (up to 60) are never accepted',
    ]);
  });

  it('a description that does not state the limits fails, naming the operation', () => {
    const document = documentOf();
    limited(document).description = 'Counts words.';
    const result = line(operationLimitRules(document), 'limits.described')!;
    expect([result.status, result.message]).to.deep.equal([
      'FAIL',
      'POST /v1/word-counts: its description does not state its limits (x-limits.text)',
    ]);
  });

  it('a limit above the connector’s own warns that it never binds; without the connector’s figures there is no such line', () => {
    const results = operationLimitRules(documentOf(), { perMinute: 10, dailyCredits: 20 });
    const result = line(results, 'limits.connector')!;
    expect(result.status).to.equal('WARN');
    expect(result.message).to.equal(
      'POST /v1/word-counts: 20 a minute is above RATE_LIMIT_PER_MINUTE (10), so it never binds; ' +
        'POST /v1/word-counts: 30 credits a day is above DAILY_CREDIT_LIMIT (20), so it never binds',
    );
    expect(line(operationLimitRules(documentOf()), 'limits.connector')).to.equal(undefined);
  });
});
