import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { OPERATIONS, publishedOperations } from '../../shared/contract/operations/registry';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, startConnector, type ConnectorUnderTest } from '../support/harness';

const OPERATION_PATHS = ['/v1/me', '/v1/things', '/v1/jobs', '/v1/jobs/{id}'];

for (const backend of BACKENDS) {
  describe(`/openapi.json and /llms.txt [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let document: any;
    let llms: string;
    before(async () => {
      c = await startConnector(backend);
      const res = await fetch(`${c.baseUrl}/openapi.json`);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      document = await res.json();
      const text = await fetch(`${c.baseUrl}/llms.txt`);
      expect(text.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      llms = await text.text();
    });
    after(async () => c.close());

    it('the document is a valid OpenAPI 3.1 description', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document));
      expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
      expect(result.valid).to.equal(true);
      expect(document.openapi).to.match(/^3\.1\./);
    });

    it('the validator really rejects a broken document (the check above can fail)', async () => {
      const broken = structuredClone(document);
      broken.paths['/v1/me'].get.responses = 'none';
      const result = await new Validator().validate(broken);
      expect(result.valid).to.equal(false);
    });

    it('servers is exactly PUBLIC_URL and paths are exactly the four operation paths', () => {
      expect(document.servers).to.deep.equal([{ url: BASE_ENV.PUBLIC_URL }]);
      expect(Object.keys(document.paths).sort()).to.deep.equal([...OPERATION_PATHS].sort());
    });

    it('every operation has a valid operationId, a summary, a description of at most 300 characters and the bearer or oauth2 scheme', () => {
      expect(document.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
      const ids = new Set<string>();
      for (const [path, item] of Object.entries<any>(document.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          const where = `${method} ${path}`;
          expect(op.operationId, where).to.match(/^[A-Za-z0-9_-]{1,64}$/);
          expect(ids.has(op.operationId), `${where} operationId unique`).to.equal(false);
          ids.add(op.operationId);
          expect(op.summary, where).to.be.a('string').and.not.equal('');
          expect(op.description.length, where).to.be.within(1, 300);
          expect(op.security, where).to.deep.equal([{ bearerAuth: [] }, { oauth2: [] }]);
          expect(op.responses['401'], `${where} documents 401`).to.not.equal(undefined);
          expect(op['x-openai-isConsequential'], where).to.be.a('boolean');
        }
      }
      expect([...ids].sort()).to.deep.equal(['createJob', 'createThing', 'getJob', 'getMe', 'listJobs', 'listThings']);
    });

    it('every success answer and the 429 answer declare the RateLimit-Policy and RateLimit headers as required', () => {
      for (const [path, item] of Object.entries<any>(document.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          for (const [status, response] of Object.entries<any>(op.responses)) {
            if (!status.startsWith('2')) continue;
            for (const name of ['RateLimit-Policy', 'RateLimit']) expect(response.headers?.[name]?.required, `${method} ${path} ${status} ${name}`).to.equal(true);
          }
          expect(op.responses['429'], `${method} ${path} documents 429`).to.deep.equal({ $ref: '#/components/responses/TooManyRequests' });
        }
      }
      const tooMany = document.components.responses.TooManyRequests.headers;
      for (const name of ['Retry-After', 'RateLimit-Policy', 'RateLimit']) expect(tooMany[name]?.required, name).to.equal(true);
    });

    it('the paid operation is marked consequential, needing confirmation, with its price and its poll target', () => {
      const op = document.paths['/v1/jobs'].post;
      expect(op).to.deep.include({
        'x-openai-isConsequential': true,
        'x-requires-confirmation': true,
        'x-long-running': true,
        'x-poll-operationId': 'getJob',
      });
      expect(op['x-cost']).to.include({ amount: 1, unit: 'credit' });
      expect(op.responses['202'].headers).to.have.keys(['Location', 'Retry-After', 'Idempotent-Replayed', 'RateLimit-Policy', 'RateLimit']);
      expect(op.responses['422']).to.not.equal(undefined);
    });

    it('read-only operations are marked not consequential and carry no price', () => {
      for (const [path, method] of [['/v1/me', 'get'], ['/v1/things', 'get'], ['/v1/jobs', 'get'], ['/v1/jobs/{id}', 'get']]) {
        const op = document.paths[path][method];
        expect(op['x-openai-isConsequential'], path).to.equal(false);
        expect(op['x-cost'], path).to.equal(undefined);
      }
    });

    it('llms.txt follows the llmstxt.org layout: title, summary line, sections, link to the OpenAPI document', () => {
      const lines = llms.split('\n');
      expect(lines[0]).to.match(/^# \S/);
      expect(lines.find((line) => line.startsWith('> '))).to.be.a('string');
      for (const section of ['## Setup', '## Operations', '## Rules for the assistant', '## OpenAPI']) expect(llms).to.contain(section);
      expect(llms).to.contain(`(${BASE_ENV.PUBLIC_URL}/openapi.json)`);
      expect(llms).to.contain(BASE_ENV.DASHBOARD_URL);
      expect(llms).to.contain(`Base URL: ${BASE_ENV.PUBLIC_URL}`);
    });

    it('llms.txt holds every published operation with its method, path, operationId and whole description verbatim', () => {
      for (const [path, item] of Object.entries<any>(document.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          expect(llms).to.contain(`### ${op.operationId}: ${method.toUpperCase()} ${path}`);
          expect(llms).to.contain(op.description);
        }
      }
      expect(llms).to.not.contain('/v1/link');
    });

    it('llms.txt states the cost, the polling and the assistant rules (confirm, poll, reuse key, 401, 402, 429)', () => {
      expect(llms).to.match(/Cost: 1 credit, charged once/);
      expect(llms).to.contain('Poll getJob (GET /v1/jobs/{id})');
      expect(llms).to.match(/fresh, specific yes/);
      expect(llms).to.match(/Never call the paid operation again to check progress/);
      expect(llms).to.match(/same idempotency key/);
      expect(llms).to.match(new RegExp(`A 401 .*reconnect at ${BASE_ENV.DASHBOARD_URL.replace(/[./]/g, '\\$&')}`));
      expect(llms).to.match(/A 429 .*Retry-After/);
      expect(llms).to.match(/A 402 .*daily credit budget.*resets/);
    });

    it('createJob documents 402 with Retry-After, and getMe documents the nullable daily_budget', () => {
      expect(document.paths['/v1/jobs'].post.responses['402']).to.deep.equal({ $ref: '#/components/responses/CreditBudgetExhausted' });
      expect(document.components.responses.CreditBudgetExhausted.headers['Retry-After'].required).to.equal(true);
      expect(document.components.schemas.Identity.required).to.include('daily_budget');
      expect(document.components.schemas.DailyBudget.type).to.deep.equal(['object', 'null']);
      expect(document.components.schemas.DailyBudget.required).to.have.members(['limit', 'spent', 'remaining', 'resets_at']);
    });

    it('neither document contains a secret, and both are the same for every caller', async () => {
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

    it('every operation description in the registry is at most 300 characters (the GPT Actions limit)', () => {
      for (const operation of OPERATIONS) expect(operation.description.length, operation.operationId).to.be.at.most(300);
      expect(publishedOperations().map((op) => op.path)).to.have.members([...OPERATION_PATHS, '/v1/things', '/v1/jobs']);
    });
  });

  describe(`a PUBLIC_URL with a path [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { PUBLIC_URL: 'https://connector.example.com/acme/' });
    });
    after(async () => c.close());

    it('is published as the server URL without its trailing slash, and requests are still validated and served', async () => {
      const document: any = await (await fetch(`${c.baseUrl}/openapi.json`)).json();
      expect(document.servers).to.deep.equal([{ url: 'https://connector.example.com/acme' }]);
      const token = await c.link('pathy');
      expect((await c.call('GET', '/v1/me', { token })).status).to.equal(200);
      expect((await c.call('GET', '/v1/things?limit=0', { token })).status).to.equal(400);
    });
  });
}
