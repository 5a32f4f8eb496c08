import { expect } from 'chai';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { OpenApiResponseChecker } from '../support/openapi-check';

const checker = new OpenApiResponseChecker(buildOpenApiDocument(publishedOperations(), 'http://localhost:8787'));
const RATE_LIMITED = { 'ratelimit-policy': '"subject";q=120;w=60', ratelimit: '"subject";r=119;t=60' };
const json = (body: unknown, type = 'application/json; charset=utf-8', extra: Record<string, string> = RATE_LIMITED) => ({
  headers: new Headers({ 'content-type': type, ...extra }),
  text: JSON.stringify(body),
});
const problem = { type: 'urn:x', title: 'Not found', status: 404, detail: 'd', request_id: 'r' };

describe('the OpenAPI response checker used by every HTTP test', () => {
  it('accepts a response that matches its declared schema', () => {
    expect(() =>
      checker.check({ method: 'GET', path: '/v1/things', status: 200, ...json({ items: [], next_cursor: null }) }),
    ).to.not.throw();
  });

  it('rejects a body with a field the schema does not declare', () => {
    expect(() =>
      checker.check({ method: 'GET', path: '/v1/things', status: 200, ...json({ items: [], next_cursor: null, extra: 1 }) }),
    ).to.throw(/does not match/);
  });

  it('rejects a status the operation does not declare', () => {
    expect(() => checker.check({ method: 'GET', path: '/v1/me', status: 418, ...json(problem, 'application/problem+json') })).to.throw(
      /not declared/,
    );
  });

  it('rejects a declared error answered with the wrong media type', () => {
    expect(() => checker.check({ method: 'GET', path: '/v1/jobs/job_x', status: 404, ...json(problem) })).to.throw(/media type/);
  });

  it('rejects a 202 from createJob without its required Location header', () => {
    expect(() => checker.check({ method: 'POST', path: '/v1/jobs', status: 202, ...json({}) })).to.throw(/Location/);
  });

  it('rejects a success answer without the RateLimit headers every operation sends', () => {
    expect(() =>
      checker.check({ method: 'GET', path: '/v1/things', status: 200, ...json({ items: [], next_cursor: null }, undefined, {}) }),
    ).to.throw(/RateLimit/);
  });

  it('rejects a non-problem body on an unknown route', () => {
    expect(() => checker.check({ method: 'GET', path: '/elsewhere', status: 404, ...json({ error: 'nope' }) })).to.throw();
  });
});
