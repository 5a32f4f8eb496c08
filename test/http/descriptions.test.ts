import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { toolName } from '../../shared/contract/mcp/tool-definitions';
import { modelDescription } from '../../shared/contract/operations/model-description';
import type { Operation } from '../../shared/contract/operations/operation';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { meetsRegistryRules } from '../../shared/contract/operations/registry-rules';
import { priceRange, priceStatement, priceText } from '../../shared/domain/jobs/price';
import { BACKENDS, type BackendKind } from '../support/backends';
import { REGISTRIES, SHIPPED_REGISTRY } from '../support/extra-operations';
import { BASE_ENV, type ConnectorUnderTest, startConnector } from '../support/harness';

/** A connector serving one registry, with the two documents it published. */
interface Served {
  c: ConnectorUnderTest;
  document: any;
  llms: string;
}

/** Starts a connector with `operations` before the suite (stopped after it) and reads both documents. */
function serveDescriptions(backend: BackendKind, operations: readonly Operation[]): () => Served {
  let served: Served | undefined;
  before(async () => {
    const c = await startConnector(backend, {}, { operations });
    const res = await fetch(`${c.baseUrl}/openapi.json`);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const text = await fetch(`${c.baseUrl}/llms.txt`);
    expect(text.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    served = { c, document: await res.json(), llms: await text.text() };
  });
  after(async () => served?.c.close());
  return () => served!;
}

/** Each operation object of a document, with its path and method. */
function documentOperations(document: any): Array<{ path: string; method: string; op: any }> {
  return Object.entries<any>(document.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ path, method, op })),
  );
}

/** The part of llms.txt about one operation: from its heading to the next heading. */
function llmsSection(llms: string, operation: Operation): string {
  const heading = `### ${operation.operationId}: ${operation.method.toUpperCase()} ${operation.path}\n`;
  const start = llms.indexOf(heading);
  expect(start, heading).to.be.at.least(0);
  const end = llms.slice(start + heading.length).search(/^##/m);
  return end < 0 ? llms.slice(start) : llms.slice(start, start + heading.length + end);
}

/** What holds for every registry: nothing here names an operation; each expectation is derived from `operations`. */
function registryDescriptionTests(operations: readonly Operation[], served: () => Served): void {
  const published = publishedOperations(operations);
  const publishedById = new Map(published.map((operation) => [operation.operationId, operation]));

  it('the document is a valid OpenAPI 3.1 description', async () => {
    const { document } = served();
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(document.openapi).to.match(/^3\.1\./);
  });

  it('the validator really rejects a broken document (the check above can fail)', async () => {
    const broken = structuredClone(served().document);
    documentOperations(broken)[0].op.responses = 'none';
    const result = await new Validator().validate(broken);
    expect(result.valid).to.equal(false);
  });

  it('servers is exactly PUBLIC_URL, and paths and methods are exactly those of the published operations, in registry order', () => {
    const { document } = served();
    expect(document.servers).to.deep.equal([{ url: BASE_ENV.PUBLIC_URL }]);
    expect(Object.keys(document.paths)).to.deep.equal([...new Set(published.map((operation) => operation.path))]);
    expect(documentOperations(document).map(({ path, method }) => `${method} ${path}`)).to.have.members(
      published.map((operation) => `${operation.method} ${operation.path}`),
    );
  });

  it('every operation has a valid unique operationId, the registry summary, its composed description (its own text verbatim; its length is a registry rule) and the bearer or oauth2 scheme', () => {
    const { document } = served();
    expect(document.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    const ids: string[] = [];
    for (const { path, method, op } of documentOperations(document)) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).to.match(/^[A-Za-z0-9_-]{1,64}$/);
      expect(ids, `${where} operationId unique`).to.not.include(op.operationId);
      ids.push(op.operationId);
      const operation = publishedById.get(op.operationId);
      expect(operation, `${where} is a published operation`).to.not.equal(undefined);
      expect([operation!.method, operation!.path], where).to.deep.equal([method, path]);
      expect(op.summary, where).to.be.a('string').and.equal(operation!.summary).and.not.equal('');
      expect(op.description, where).to.equal(modelDescription(operation!));
      expect(op.description, where).to.contain(operation!.description);
      expect(op.security, where).to.deep.equal([{ bearerAuth: [] }, { oauth2: [] }]);
      expect(op.responses['401'], `${where} documents 401`).to.not.equal(undefined);
    }
    expect(ids).to.have.members([...publishedById.keys()]);
  });

  it('every success answer and the 429 answer declare the RateLimit-Policy and RateLimit headers as required', () => {
    const { document } = served();
    for (const { path, method, op } of documentOperations(document)) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!status.startsWith('2')) continue;
        for (const name of ['RateLimit-Policy', 'RateLimit'])
          expect(response.headers?.[name]?.required, `${method} ${path} ${status} ${name}`).to.equal(true);
      }
      expect(op.responses['429'], `${method} ${path} documents 429`).to.deep.equal({ $ref: '#/components/responses/TooManyRequests' });
    }
    const tooMany = document.components.responses.TooManyRequests.headers;
    for (const name of ['Retry-After', 'RateLimit-Policy', 'RateLimit']) expect(tooMany[name]?.required, name).to.equal(true);
  });

  it('every operation is consequential as the registry says; a paid one also needs confirmation, states its price rule and range in x-cost and once in its description, and documents 402 and 422; a free one carries no price', () => {
    const { document } = served();
    for (const operation of published) {
      const op = document.paths[operation.path][operation.method];
      expect(op['x-openai-isConsequential'], operation.operationId).to.equal(operation.consequential);
      if (operation.price === undefined) {
        expect(op['x-cost'], operation.operationId).to.equal(undefined);
        expect(op['x-requires-confirmation'], operation.operationId).to.equal(undefined);
        continue;
      }
      expect(op['x-requires-confirmation'], operation.operationId).to.equal(true);
      // x-cost names the rule's kind, its sentence and its range; the description states that sentence once.
      const { price } = operation;
      const cost = op['x-cost'];
      expect(cost, operation.operationId).to.deep.include({ kind: price.kind, text: priceText(price), ...priceRange(price) });
      expect(Number.isInteger(cost.min) && Number.isInteger(cost.max) && cost.min <= cost.max, operation.operationId).to.equal(true);
      expect(op.description.toLowerCase().split(cost.text.replace(/\.$/, '').toLowerCase()), operation.operationId).to.have.length(2);
      expect(op.responses['402'], operation.operationId).to.deep.equal({ $ref: '#/components/responses/CreditBudgetExhausted' });
      expect(op.responses['422'], operation.operationId).to.deep.equal({ $ref: '#/components/responses/IdempotencyConflict' });
    }
    // Retry-After is sent for a budget used up today, not for a price above the whole limit.
    expect(document.components.responses.CreditBudgetExhausted.headers['Retry-After'].required).to.equal(false);
    expect(document.components.responses.CreditBudgetExhausted.description).to.match(/price-exceeds-daily-limit/);
  });

  it('every asynchronous operation is long-running, names a published operation to poll, and its 202 requires Location and Retry-After; no other is long-running', () => {
    const { document } = served();
    for (const operation of published) {
      const op = document.paths[operation.path][operation.method];
      if (!operation.async) {
        expect(op['x-long-running'], operation.operationId).to.equal(undefined);
        continue;
      }
      expect(op).to.deep.include({ 'x-long-running': true, 'x-poll-operationId': operation.async.pollOperationId });
      expect(publishedById.has(operation.async.pollOperationId), `${operation.operationId} polls a published operation`).to.equal(true);
      for (const name of ['Location', 'Retry-After'])
        expect(op.responses['202']?.headers?.[name]?.required, `${operation.operationId} 202 ${name}`).to.equal(true);
    }
  });

  it('llms.txt follows the llmstxt.org layout: title, summary line, sections, link to the OpenAPI document', () => {
    const { llms } = served();
    const lines = llms.split('\n');
    expect(lines[0]).to.match(/^# \S/);
    expect(lines.find((line) => line.startsWith('> '))).to.be.a('string');
    for (const section of ['## Setup', '## Operations', '## Rules for the assistant', '## MCP', '## OpenAPI'])
      expect(llms).to.contain(section);
    expect(llms).to.contain(`(${BASE_ENV.PUBLIC_URL}/openapi.json)`);
    expect(llms).to.contain(BASE_ENV.DASHBOARD_URL);
    expect(llms).to.contain(`Base URL: ${BASE_ENV.PUBLIC_URL}`);
  });

  it('llms.txt holds every published operation with its method, path, operationId and whole composed description verbatim, and no unpublished one', () => {
    const { llms } = served();
    for (const operation of published) expect(llmsSection(llms, operation)).to.contain(`\n\n${modelDescription(operation)}\n`);
    expect(llms.match(/^### /gm)).to.have.length(published.length);
    for (const operation of operations.filter((candidate) => !candidate.published))
      expect(llms, operation.operationId).to.not.contain(operation.path);
  });

  it('llms.txt gives each operation its cost (free, or its credits charged once with the key rule) and each asynchronous one its poll target', () => {
    const { llms } = served();
    for (const operation of published) {
      const section = llmsSection(llms, operation);
      if (operation.price === undefined) expect(section, operation.operationId).to.contain('- Cost: free.');
      else {
        expect(section, operation.operationId).to.contain(
          `- Cost: ${priceStatement(operation.price)}, charged once when the job is accepted.`,
        );
        expect(section, operation.operationId).to.match(/explicit yes.*idempotency key/);
      }
      if (operation.async) {
        const poll = publishedById.get(operation.async.pollOperationId)!;
        expect(section, operation.operationId).to.contain(
          `Poll ${poll.operationId} (${poll.method.toUpperCase()} ${poll.path}) every Retry-After seconds`,
        );
      } else expect(section, operation.operationId).to.not.contain('- Asynchronous:');
    }
  });

  it('llms.txt states the assistant rules (confirm, poll, reuse key, 401, 402, 429)', () => {
    const { llms } = served();
    expect(llms).to.match(/fresh, specific yes/);
    expect(llms).to.match(/Never call the paid operation again to check progress/);
    expect(llms).to.match(/same idempotency key/);
    expect(llms).to.match(new RegExp(`A 401 .*reconnect at ${BASE_ENV.DASHBOARD_URL.replace(/[./]/g, '\\$&')}`));
    expect(llms).to.match(/A 429 .*Retry-After/);
    expect(llms).to.match(/A 402 .*daily credit budget.*resets/);
    expect(llms).to.match(/A 402 whose type ends in price-exceeds-daily-limit .* do not retry it/);
  });

  it('llms.txt lists every published operation as its MCP tool, and says of each paid tool, and no other, that it requires an idempotency_key', () => {
    const { llms } = served();
    const tools = llms.split('\n').find((line) => line.startsWith('- Tools: '))!;
    expect(
      tools
        .slice(tools.lastIndexOf(': ') + 2)
        .replace(/\.$/, '')
        .split(', '),
    ).to.deep.equal(published.map((operation) => `${toolName(operation.operationId)} (${operation.operationId})`));
    const paid = published.filter((operation) => operation.price !== undefined);
    for (const operation of paid)
      expect(llms).to.contain(`- ${toolName(operation.operationId)} is paid: it requires an idempotency_key argument`);
    expect(llms.match(/^- \S+ is paid: /gm) ?? []).to.have.length(paid.length);
  });

  it('neither document contains a secret, and both are the same for every caller', async () => {
    const { c, document, llms } = served();
    const secrets = [BASE_ENV.CONNECTOR_SECRET, BASE_ENV.LINK_SECRET];
    const token = await c.link('someone@example.com');
    const again = await (await fetch(`${c.baseUrl}/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).text();
    const llmsAgain = await (await fetch(`${c.baseUrl}/llms.txt?x=1`, { headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } })).text();
    for (const text of [JSON.stringify(document), llms]) {
      for (const secret of secrets) expect(text).to.not.contain(secret);
      expect(text).to.not.contain('someone@example.com');
      expect(text).to.not.contain('x-link-secret');
    }
    expect(again).to.equal(JSON.stringify(document));
    expect(llmsAgain).to.equal(llms);
  });
}

/** What the shipped placeholders promise; these tests name them, and go when they go. */
function placeholderDescriptionTests(served: () => Served): void {
  describe('the placeholder operations', () => {
    it('the placeholder createJob costs 1 credit, is polled with getJob, and its 202 declares Location, Retry-After, Idempotent-Replayed and the RateLimit headers', () => {
      const { document, llms } = served();
      const op = document.paths['/v1/jobs'].post;
      expect(op).to.deep.include({
        'x-openai-isConsequential': true,
        'x-requires-confirmation': true,
        'x-long-running': true,
        'x-poll-operationId': 'getJob',
      });
      expect(op['x-cost']).to.deep.equal({ kind: 'fixed', credits: 1, text: 'Costs 1 credit.', min: 1, max: 1, cancel_charge: 'progress' });
      // Its text states the price already, so the description is the text as written.
      expect(op.description).to.match(/^Starts a paid job that costs 1 credit, charged once/);
      expect(op.responses['202'].headers).to.have.keys(['Location', 'Retry-After', 'Idempotent-Replayed', 'RateLimit-Policy', 'RateLimit']);
      expect(llms).to.match(/Cost: 1 credit, charged once/);
      expect(llms).to.contain('Poll getJob (GET /v1/jobs/{id})');
    });

    it('the placeholder reads getMe, listThings, listJobs and getJob are marked not consequential and carry no price', () => {
      const { document } = served();
      for (const [path, method] of [
        ['/v1/me', 'get'],
        ['/v1/things', 'get'],
        ['/v1/jobs', 'get'],
        ['/v1/jobs/{id}', 'get'],
      ]) {
        const op = document.paths[path][method];
        expect(op['x-openai-isConsequential'], path).to.equal(false);
        expect(op['x-cost'], path).to.equal(undefined);
      }
    });

    it('the placeholder getMe documents the nullable daily_budget', () => {
      const { document } = served();
      expect(document.components.schemas.Identity.required).to.include('daily_budget');
      expect(document.components.schemas.DailyBudget.type).to.deep.equal(['object', 'null']);
      expect(document.components.schemas.DailyBudget.required).to.have.members(['limit', 'spent', 'remaining', 'resets_at']);
    });
  });
}

for (const backend of BACKENDS) {
  for (const registry of REGISTRIES) {
    describe(`/openapi.json and /llms.txt of ${registry.name} [${backend}]`, () => {
      // An operation that breaks a registry rule is named by its own test (registry-rules.test.ts), not here.
      const operations = registry.operations.filter(meetsRegistryRules);
      const served = serveDescriptions(backend, operations);
      registryDescriptionTests(operations, served);
      if (registry === SHIPPED_REGISTRY) placeholderDescriptionTests(served);
    });
  }

  describe(`a PUBLIC_URL with a path [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { PUBLIC_URL: 'https://connector.example.com/acme/' });
    });
    after(async () => c.close());

    it('is published as the server URL without its trailing slash, and requests to the placeholders getMe and listThings are still validated and served', async () => {
      const document: any = await (await fetch(`${c.baseUrl}/openapi.json`)).json();
      expect(document.servers).to.deep.equal([{ url: 'https://connector.example.com/acme' }]);
      const token = await c.link('pathy');
      expect((await c.call('GET', '/v1/me', { token })).status).to.equal(200);
      expect((await c.call('GET', '/v1/things?limit=0', { token })).status).to.equal(400);
    });
  });
}
