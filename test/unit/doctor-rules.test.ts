import { expect } from 'chai';
import { exitCode, summarize, type CheckResult } from '../../doctor/check-result';
import { bodyFieldName, gptActionsRules } from '../../doctor/gpt-actions-rules';
import { protectedResourceUrls } from '../../doctor/mcp-checks';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import { ENV_LINK_SECRET, ENV_PUBLIC_URL, parseDoctorArgs } from '../../doctor/options';
import { formatJson, formatText } from '../../doctor/report';
import { Target } from '../../doctor/target';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { publishedOperations } from '../../shared/contract/operations/registry';

const PUBLIC_URL = 'https://connector.example.com';

/** The document the connector publishes, as a platform reads it (JSON: no shared objects), fresh for each test to break. */
function published(): Record<string, any> {
  return JSON.parse(JSON.stringify(buildOpenApiDocument(publishedOperations(), PUBLIC_URL)));
}

function rule(document: Record<string, any>, id: string): CheckResult {
  const found = gptActionsRules(document).find((r) => r.id === id);
  expect(found, id).to.not.equal(undefined);
  return found!;
}

describe('doctor: GPT Actions rules (pure)', () => {
  it('pass on the document the registry generates', () => {
    const results = gptActionsRules(published());
    expect(results.map((r) => r.id)).to.deep.equal([
      'actions.operation-id', 'actions.description-length', 'actions.parameter-description-length', 'actions.operation-count',
      'actions.security', 'actions.custom-headers', 'actions.response-size',
    ]);
    expect(results.filter((r) => r.status !== 'PASS')).to.deep.equal([]);
  });

  it('an operation description of 301 characters fails; 300 passes', () => {
    const document = published();
    document.paths['/v1/things'].get.description = 'y'.repeat(300);
    expect(rule(document, 'actions.description-length').status).to.equal('PASS');
    document.paths['/v1/things'].get.description = 'y'.repeat(301);
    expect(rule(document, 'actions.description-length')).to.deep.include({ status: 'FAIL', message: 'GET /v1/things: description is 301 characters (max 300)' });
  });

  it('a summary over 300 characters or a missing description fails', () => {
    const document = published();
    document.paths['/v1/me'].get.summary = 's'.repeat(301);
    delete document.paths['/v1/jobs'].post.description;
    const { status, message } = rule(document, 'actions.description-length');
    expect(status).to.equal('FAIL');
    expect(message).to.include('GET /v1/me: summary is 301 characters').and.include('POST /v1/jobs has no description');
  });

  it('a parameter description over 700 characters fails, naming the parameter', () => {
    const document = published();
    document.paths['/v1/things'].get.parameters[0].description = 'p'.repeat(701);
    const name = document.paths['/v1/things'].get.parameters[0].name;
    expect(rule(document, 'actions.parameter-description-length')).to.deep.include({
      status: 'FAIL', message: `GET /v1/things: parameter ${name} description is 701 characters (max 700)`,
    });
  });

  it('31 operations fail actions.operation-count; 30 pass', () => {
    const document = published();
    const template = document.paths['/v1/me'].get;
    for (let i = 0; Object.values<any>(document.paths).flatMap((item) => Object.keys(item)).length < 30; i += 1) {
      document.paths[`/v1/extra${i}`] = { get: { ...template, operationId: `extra${i}` } };
    }
    expect(rule(document, 'actions.operation-count').status).to.equal('PASS');
    document.paths['/v1/one-more'] = { get: { ...template, operationId: 'oneMore' } };
    expect(rule(document, 'actions.operation-count')).to.deep.include({ status: 'FAIL', message: '31 operations; a GPT action imports at most 30' });
  });

  it('a missing, malformed or duplicated operationId fails', () => {
    const document = published();
    delete document.paths['/v1/me'].get.operationId;
    document.paths['/v1/things'].get.operationId = 'list things';
    document.paths['/v1/jobs'].get.operationId = 'createThing';
    const { status, message } = rule(document, 'actions.operation-id');
    expect(status).to.equal('FAIL');
    expect(message).to.include('GET /v1/me has no operationId').and.include('"list things" must match').and.include('"createThing" is used twice');
  });

  it('an operation without security, or with an undefined scheme, fails; document-wide security only warns', () => {
    const document = published();
    delete document.paths['/v1/me'].get.security;
    expect(rule(document, 'actions.security')).to.deep.include({ status: 'FAIL', message: 'GET /v1/me declares no security' });
    document.security = [{ bearerAuth: [] }];
    expect(rule(document, 'actions.security').status).to.equal('WARN');
    document.paths['/v1/things'].get.security = [{ apiKey: [] }];
    expect(rule(document, 'actions.security').message).to.include('GET /v1/things uses undefined scheme "apiKey"');
  });

  it('a required custom header fails; an optional one passes only with a body field of the same name', () => {
    const document = published();
    const header = document.paths['/v1/jobs'].post.parameters.find((p: any) => p.in === 'header');
    expect(header.name).to.equal('Idempotency-Key');
    expect(rule(document, 'actions.custom-headers').status).to.equal('PASS');
    const body = document.paths['/v1/jobs'].post.requestBody.content['application/json'].schema;
    delete body.properties.idempotency_key;
    expect(rule(document, 'actions.custom-headers')).to.deep.include({
      status: 'FAIL', message: 'POST /v1/jobs: header Idempotency-Key has no request-body field (idempotency_key) for clients that cannot send headers',
    });
    header.required = true;
    expect(rule(document, 'actions.custom-headers').message).to.equal('POST /v1/jobs requires header Idempotency-Key, which an Actions client cannot send');
  });

  it('a list response with no bound on its size warns', () => {
    const document = published();
    const limit = document.paths['/v1/things'].get.parameters.find((p: any) => p.name === 'limit');
    delete limit.schema.maximum;
    expect(rule(document, 'actions.response-size')).to.deep.include({
      status: 'WARN', message: 'GET /v1/things answers a list with neither maxItems nor a limit parameter with a maximum',
    });
  });

  it('names the body field of a header: Idempotency-Key → idempotency_key', () => {
    expect(bodyFieldName('Idempotency-Key')).to.equal('idempotency_key');
  });
});

describe('doctor: MCP naming (pure)', () => {
  it('derives snake_case tool names from operationIds', () => {
    expect(publishedOperations().map((o) => toolName(o.operationId))).to.deep.equal(['get_me', 'list_things', 'create_thing', 'create_job', 'list_jobs', 'get_job']);
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
    expect(target.reachable('https://host.example.com/connector/oauth/authorize')).to.equal('http://api.ns.svc:80/connector/oauth/authorize');
    expect(target.reachable('https://host.example.com/connector')).to.equal('http://api.ns.svc:80/connector');
  });

  it('moves a URL elsewhere on the public origin (well-known documents) to the base origin, query kept', () => {
    expect(target.reachable('https://host.example.com/.well-known/oauth-authorization-server/connector?x=1')).to.equal('http://api.ns.svc/.well-known/oauth-authorization-server/connector?x=1');
    expect(target.reachable('https://host.example.com/connectorx/a'), 'only a whole path segment is under PUBLIC_URL').to.equal('http://api.ns.svc/connectorx/a');
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
    const flag = parseDoctorArgs(['http://svc:80', '--public-url', 'https://flag.example.com'], { [ENV_PUBLIC_URL]: 'https://public.example.com' });
    expect(flag).to.have.nested.property('options.publicUrl', 'https://flag.example.com');
  });

  it('reads the link secret from the flag or the environment, and --json and --timeout-ms', () => {
    expect(parseDoctorArgs(['https://a.example.com', '--json', '--timeout-ms', '500'], { [ENV_LINK_SECRET]: 's3' })).to.deep.equal({
      options: { url: 'https://a.example.com', publicUrl: 'https://a.example.com', linkSecret: 's3', json: true, timeoutMs: 500 },
    });
    expect(parseDoctorArgs(['https://a.example.com', '--link-secret', 'flag'], { [ENV_LINK_SECRET]: 'env' })).to.have.nested.property('options.linkSecret', 'flag');
  });

  it('refuses a missing, relative or non-http URL, an unknown flag and a bad timeout', () => {
    for (const argv of [[], ['a', 'b'], ['/relative'], ['ftp://x.example.com'], ['https://a.example.com', '--nope'], ['https://a.example.com', '--timeout-ms', '0']]) {
      expect(parseDoctorArgs(argv, {}), argv.join(' ')).to.have.property('error');
    }
    expect(parseDoctorArgs(['https://a.example.com', '--public-url', 'nope'], {})).to.have.property('error').that.includes('public URL');
  });

  it('answers --help with the usage', () => {
    expect(parseDoctorArgs(['--help'], {})).to.have.property('help').that.match(/^Usage: connector-doctor <URL>/);
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
      url: 'http://svc', public_url: 'https://x.example.com', ok: false, summary: { pass: 1, warn: 1, fail: 1 }, results,
    });
  });
});
