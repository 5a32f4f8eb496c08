import { expect } from 'chai';
import { type CheckResult, exitCode, summarize } from '../../doctor/check-result';
import { type DocumentOperation, documentOperations, label } from '../../doctor/context';
import { bodyFieldName, gptActionsRules } from '../../doctor/gpt-actions-rules';
import { MAX_TOOL_NAME, protectedResourceUrls } from '../../doctor/mcp-checks';
import { ENV_LINK_SECRET, ENV_METRICS_URL, ENV_PUBLIC_URL, parseDoctorArgs } from '../../doctor/options';
import { formatJson, formatText } from '../../doctor/report';
import { maximalSize } from '../../doctor/response-size';
import { Target } from '../../doctor/target';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import type { Operation } from '../../shared/contract/operations/operation';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { meetsRegistryRules } from '../../shared/contract/operations/registry-rules';
import { REGISTRIES } from '../support/extra-operations';

const PUBLIC_URL = 'https://connector.example.com';

/**
 * The document a registry publishes, as a platform reads it (JSON: no shared objects), fresh for each test to
 * break. An operation that breaks a registry rule is left out: its own test names it (registry-rules.test.ts).
 */
function published(operations: readonly Operation[]): Record<string, any> {
  return JSON.parse(JSON.stringify(buildOpenApiDocument(publishedOperations(operations.filter(meetsRegistryRules)), PUBLIC_URL)));
}

function rule(document: Record<string, any>, id: string): CheckResult {
  const found = gptActionsRules(document).find((r) => r.id === id);
  expect(found, id).to.not.equal(undefined);
  return found!;
}

/** The first operation of the document that fits `fits`: a rule test breaks it, whichever operation it is. */
function find(
  document: Record<string, any>,
  what: string,
  fits: (op: DocumentOperation) => boolean = () => true,
): DocumentOperation & { label: string } {
  const found = documentOperations(document).find(fits);
  expect(found, `the document has ${what}`).to.not.equal(undefined);
  return { ...found!, label: label(found!) };
}

/** The `limit` query parameter of a list operation, if it has one. */
const limitOf = (op: DocumentOperation) => (op.operation.parameters ?? []).find((p: any) => p.in === 'query' && p.name === 'limit');

/** A custom header parameter (one an Actions client does not send by itself). */
const customHeader = (parameter: Record<string, any>) =>
  parameter.in === 'header' && !['authorization', 'content-type', 'accept'].includes(String(parameter.name).toLowerCase());

/** The rules, applied to the document of one registry; every target is found by what it is, none by name. */
function gptActionsRuleTests(operations: readonly Operation[]): void {
  it('pass on the document the registry generates, with no warning', () => {
    const results = gptActionsRules(published(operations));
    expect(results.map((r) => r.id)).to.deep.equal([
      'actions.operation-id',
      'actions.description-length',
      'actions.parameter-description-length',
      'actions.operation-count',
      'actions.security',
      'actions.custom-headers',
      'actions.response-size',
    ]);
    expect(results.filter((r) => r.status !== 'PASS')).to.deep.equal([]);
  });

  it('every published operation with a list answer is sized by the doctor at its largest page under 100,000 characters', () => {
    const document = published(operations);
    const lists = documentOperations(document).filter((op) => typeof limitOf(op)?.schema?.maximum === 'number');
    expect(lists.map(label), 'the registry publishes lists').to.not.deep.equal([]);
    for (const op of lists) {
      const schema = op.operation.responses['200'].content['application/json'].schema;
      const sized = maximalSize(document, schema, limitOf(op).schema.maximum);
      expect('length' in sized && sized.length, `${label(op)}: ${JSON.stringify(sized)}`)
        .to.be.a('number')
        .below(100_000);
    }
    expect(rule(document, 'actions.response-size').status).to.equal('PASS');
  });

  it('an operation description of 301 characters fails; 300 passes', () => {
    const document = published(operations);
    const target = find(document, 'an operation');
    target.operation.description = 'y'.repeat(300);
    expect(rule(document, 'actions.description-length').status).to.equal('PASS');
    target.operation.description = 'y'.repeat(301);
    expect(rule(document, 'actions.description-length')).to.deep.include({
      status: 'FAIL',
      message: `${target.label}: description is 301 characters (max 300)`,
    });
  });

  it('a summary over 300 characters or a missing description fails', () => {
    const document = published(operations);
    const first = find(document, 'an operation');
    const other = find(document, 'a second operation', (op) => op.operation !== first.operation);
    first.operation.summary = 's'.repeat(301);
    delete other.operation.description;
    const { status, message } = rule(document, 'actions.description-length');
    expect(status).to.equal('FAIL');
    expect(message).to.include(`${first.label}: summary is 301 characters`).and.include(`${other.label} has no description`);
  });

  it('a parameter description over 700 characters fails, naming the parameter', () => {
    const document = published(operations);
    const target = find(document, 'an operation with a parameter', (op) => (op.operation.parameters ?? []).length > 0);
    const [parameter] = target.operation.parameters;
    parameter.description = 'p'.repeat(701);
    expect(rule(document, 'actions.parameter-description-length')).to.deep.include({
      status: 'FAIL',
      message: `${target.label}: parameter ${parameter.name} description is 701 characters (max 700)`,
    });
  });

  it('31 operations fail actions.operation-count; 30 pass', () => {
    const document = published(operations);
    const template = find(document, 'an operation').operation;
    for (let i = 0; documentOperations(document).length < 30; i += 1) {
      document.paths[`/v1/extra${i}`] = { get: { ...template, operationId: `extra${i}` } };
    }
    expect(rule(document, 'actions.operation-count').status).to.equal('PASS');
    document.paths['/v1/one-more'] = { get: { ...template, operationId: 'oneMore' } };
    expect(rule(document, 'actions.operation-count')).to.deep.include({
      status: 'FAIL',
      message: '31 operations; a GPT action imports at most 30',
    });
  });

  it('a missing, malformed or duplicated operationId fails', () => {
    const document = published(operations);
    const template = find(document, 'an operation').operation;
    // Copies, so that the registry's own operations stay valid and the rule names only what was broken.
    document.paths['/v1/no-id'] = { get: { ...template, operationId: undefined } };
    document.paths['/v1/bad-id'] = { get: { ...template, operationId: 'bad id' } };
    document.paths['/v1/same-id'] = { get: { ...template } };
    const { status, message } = rule(document, 'actions.operation-id');
    expect(status).to.equal('FAIL');
    expect(message)
      .to.include('GET /v1/no-id has no operationId')
      .and.include('"bad id" must match')
      .and.include(`"${template.operationId}" is used twice`);
  });

  it('an operation without security, or with an undefined scheme, fails; document-wide security only warns', () => {
    const document = published(operations);
    const first = find(document, 'an operation');
    const other = find(document, 'a second operation', (op) => op.operation !== first.operation);
    delete first.operation.security;
    expect(rule(document, 'actions.security')).to.deep.include({ status: 'FAIL', message: `${first.label} declares no security` });
    document.security = [{ bearerAuth: [] }];
    expect(rule(document, 'actions.security').status).to.equal('WARN');
    other.operation.security = [{ apiKey: [] }];
    expect(rule(document, 'actions.security').message).to.include(`${other.label} uses undefined scheme "apiKey"`);
  });

  it('a required custom header fails; an optional one passes only with a body field or a query parameter of the same name', () => {
    const document = published(operations);
    const target = find(document, 'an operation with an optional custom header', (op) =>
      (op.operation.parameters ?? []).some(customHeader),
    );
    const header = target.operation.parameters.find(customHeader);
    expect(header.required).to.not.equal(true);
    expect(rule(document, 'actions.custom-headers').status).to.equal('PASS');
    const field = bodyFieldName(header.name);
    const body = target.operation.requestBody.content['application/json'].schema;
    expect(body.properties).to.have.property(field);
    delete body.properties[field];
    expect(rule(document, 'actions.custom-headers')).to.deep.include({
      status: 'FAIL',
      message: `${target.label}: header ${header.name} has no request-body field or query parameter (${field}) for clients that cannot send headers`,
    });
    // A body that is all the seller's offers the key as a query parameter instead, which Actions clients send.
    target.operation.parameters.push({ name: field, in: 'query', required: false, schema: { type: 'string' } });
    expect(rule(document, 'actions.custom-headers').status).to.equal('PASS');
    header.required = true;
    expect(rule(document, 'actions.custom-headers').message).to.equal(
      `${target.label} requires header ${header.name}, which an Actions client cannot send`,
    );
  });

  it('a list response with no bound on its size warns', () => {
    const document = published(operations);
    const target = find(document, 'a list operation with a limit parameter', (op) => typeof limitOf(op)?.schema?.maximum === 'number');
    delete limitOf(target).schema.maximum;
    const result = rule(document, 'actions.response-size');
    expect(result.status).to.equal('WARN');
    expect(result.message).to.match(new RegExp(`${escapeRegExp(target.label)} 200 cannot be sized: \\.items has no bound`));
  });

  it('the response-size rule measures a full page of maximal items: a list item field without maxLength warns, a page over 100,000 characters warns', () => {
    const document = published(operations);
    const sized = rule(document, 'actions.response-size');
    expect(sized.status).to.equal('PASS');
    const largest = Number(/at (\d+)$/.exec(sized.message)?.[1]);
    expect(largest, sized.message).to.be.within(1, 100_000);
    // The page of jobs: a summary's values may be 40 characters; let one be 2,000 and a page of 100 is too big.
    const summary = document.components.schemas.JobSummary.properties.input;
    summary.additionalProperties.anyOf[0].maxLength = 2000;
    expect(rule(document, 'actions.response-size').message).to.match(/GET \/v1\/jobs 200 is \d+ characters at its largest \(max 100000\)/);
    delete summary.additionalProperties.anyOf[0].maxLength;
    expect(rule(document, 'actions.response-size').message).to.match(
      /GET \/v1\/jobs 200 cannot be sized: \.items\[\]\.input\.\* has no bound/,
    );
  });
}

/** `text` for a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

for (const registry of REGISTRIES) {
  describe(`doctor: GPT Actions rules over the document of ${registry.name} (pure)`, () => gptActionsRuleTests(registry.operations));

  describe(`doctor: MCP naming of ${registry.name} (pure)`, () => {
    it('every published operation has a tool name that is its operationId in snake_case, unique, and at most 64 characters of a-z 0-9 _', () => {
      const operations = publishedOperations(registry.operations);
      const names = operations.map((o) => toolName(o.operationId));
      for (const [i, name] of names.entries()) {
        expect(name, operations[i].operationId)
          .to.match(/^[a-z0-9_]+$/)
          .and.have.length.within(1, MAX_TOOL_NAME);
        expect(name.replace(/_/g, ''), operations[i].operationId).to.equal(operations[i].operationId.toLowerCase().replace(/[_-]/g, ''));
      }
      expect(new Set(names).size).to.equal(names.length);
    });
  });
}

describe('doctor: naming (pure)', () => {
  it('names the body field of a header: Idempotency-Key → idempotency_key', () => {
    expect(bodyFieldName('Idempotency-Key')).to.equal('idempotency_key');
  });

  it('accepts the protected-resource metadata under PUBLIC_URL and, for a path, in RFC 9728 origin form', () => {
    expect(protectedResourceUrls('https://c.example.com')).to.deep.equal(['https://c.example.com/.well-known/oauth-protected-resource']);
    expect(protectedResourceUrls('https://c.example.com/connector')).to.deep.equal([
      'https://c.example.com/connector/.well-known/oauth-protected-resource',
      'https://c.example.com/.well-known/oauth-protected-resource/connector',
    ]);
  });
});

describe('doctor: published URLs reached from inside a cluster (Target.reachable)', () => {
  const target = new Target('http://api.ns.svc:80/connector', 'https://host.example.com/connector/', 1000);

  it('keeps a URL under PUBLIC_URL under the base URL', () => {
    expect(target.reachable('https://host.example.com/connector/oauth/authorize')).to.equal(
      'http://api.ns.svc:80/connector/oauth/authorize',
    );
    expect(target.reachable('https://host.example.com/connector')).to.equal('http://api.ns.svc:80/connector');
  });

  it('moves a URL elsewhere on the public origin (well-known documents) to the base origin, query kept', () => {
    expect(target.reachable('https://host.example.com/.well-known/oauth-authorization-server/connector?x=1')).to.equal(
      'http://api.ns.svc/.well-known/oauth-authorization-server/connector?x=1',
    );
    expect(target.reachable('https://host.example.com/connectorx/a'), 'only a whole path segment is under PUBLIC_URL').to.equal(
      'http://api.ns.svc/connectorx/a',
    );
  });

  it('leaves a URL on another origin alone', () => {
    expect(target.reachable('https://elsewhere.example.com/connector/x')).to.equal('https://elsewhere.example.com/connector/x');
  });
});

describe('doctor: command line (pure)', () => {
  it('takes the URL as the public URL by default, and --public-url over the environment', () => {
    expect(parseDoctorArgs(['https://a.example.com'], {})).to.deep.equal({
      options: { url: 'https://a.example.com', publicUrl: 'https://a.example.com', linkSecret: undefined, json: false, timeoutMs: 10_000 },
    });
    const fromEnv = parseDoctorArgs(['http://svc:80'], { [ENV_PUBLIC_URL]: 'https://public.example.com' });
    expect(fromEnv).to.have.nested.property('options.publicUrl', 'https://public.example.com');
    const flag = parseDoctorArgs(['http://svc:80', '--public-url', 'https://flag.example.com'], {
      [ENV_PUBLIC_URL]: 'https://public.example.com',
    });
    expect(flag).to.have.nested.property('options.publicUrl', 'https://flag.example.com');
  });

  it('reads the link secret from the flag or the environment, and --json and --timeout-ms', () => {
    expect(parseDoctorArgs(['https://a.example.com', '--json', '--timeout-ms', '500'], { [ENV_LINK_SECRET]: 's3' })).to.deep.equal({
      options: { url: 'https://a.example.com', publicUrl: 'https://a.example.com', linkSecret: 's3', json: true, timeoutMs: 500 },
    });
    expect(parseDoctorArgs(['https://a.example.com', '--link-secret', 'flag'], { [ENV_LINK_SECRET]: 'env' })).to.have.nested.property(
      'options.linkSecret',
      'flag',
    );
  });

  it('reads the metrics URL from the flag over the environment, and refuses one that is not an absolute http(s) URL', () => {
    const url = 'https://a.example.com';
    expect(parseDoctorArgs([url], { [ENV_METRICS_URL]: 'http://10.0.0.5:9464/metrics' })).to.have.nested.property(
      'options.metricsUrl',
      'http://10.0.0.5:9464/metrics',
    );
    expect(
      parseDoctorArgs([url, '--metrics-url', 'http://flag:9464/metrics'], { [ENV_METRICS_URL]: 'http://env/metrics' }),
    ).to.have.nested.property('options.metricsUrl', 'http://flag:9464/metrics');
    expect(parseDoctorArgs([url, '--metrics-url', '/metrics'], {}))
      .to.have.property('error')
      .that.includes('metrics URL');
  });

  it('refuses a missing, relative or non-http URL, an unknown flag and a bad timeout', () => {
    for (const argv of [
      [],
      ['a', 'b'],
      ['/relative'],
      ['ftp://x.example.com'],
      ['https://a.example.com', '--nope'],
      ['https://a.example.com', '--timeout-ms', '0'],
    ]) {
      expect(parseDoctorArgs(argv, {}), argv.join(' ')).to.have.property('error');
    }
    expect(parseDoctorArgs(['https://a.example.com', '--public-url', 'nope'], {}))
      .to.have.property('error')
      .that.includes('public URL');
  });

  it('answers --help with the usage', () => {
    expect(parseDoctorArgs(['--help'], {}))
      .to.have.property('help')
      .that.match(/^Usage: connector-doctor <URL>/);
  });
});

describe('doctor: report (pure)', () => {
  const results: CheckResult[] = [
    { id: 'a.one', status: 'PASS', message: 'fine' },
    { id: 'b.longer-id', status: 'WARN', message: 'look' },
    { id: 'c', status: 'FAIL', message: 'broken' },
  ];

  it('exits 1 when a rule fails and 0 with only passes and warnings', () => {
    expect(exitCode(results)).to.equal(1);
    expect(exitCode(results.slice(0, 2))).to.equal(0);
    expect(summarize(results)).to.deep.equal({ pass: 1, warn: 1, fail: 1 });
  });

  it('prints aligned PASS|WARN|FAIL lines and a verdict', () => {
    expect(formatText(results, 'https://x.example.com')).to.equal(
      'PASS  a.one        fine\nWARN  b.longer-id  look\nFAIL  c            broken\n\nNOT READY: https://x.example.com: 1 passed, 1 warnings, 1 failed\n',
    );
  });

  it('prints the same results as JSON', () => {
    expect(JSON.parse(formatJson(results, 'http://svc', 'https://x.example.com'))).to.deep.equal({
      url: 'http://svc',
      public_url: 'https://x.example.com',
      ok: false,
      summary: { pass: 1, warn: 1, fail: 1 },
      results,
    });
  });
});
