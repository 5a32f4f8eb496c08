import { SpanKind } from '@opentelemetry/api';
import { expect } from 'chai';
import { redactAttributes, withoutQuery } from '../../../../../shared/platform/tracing/redacting-exporter';

describe('span redaction', () => {
  it('withoutQuery: drops the query, the fragment and any user:password@ of a URL or request target', () => {
    expect(withoutQuery('https://user:pw@host.example/cb?code=abc&state=s#frag')).to.equal('https://host.example/cb');
    expect(withoutQuery('/oauth/authorize?code_challenge=x')).to.equal('/oauth/authorize');
    expect(withoutQuery('https://host.example/plain')).to.equal('https://host.example/plain');
  });

  it('job data, results, error messages and url.query: dropped from any span', () => {
    const attributes = {
      'bullmq.job.result': '{"secret":1}',
      'exception.message': 'input was x',
      'url.query': 'a=1',
      'http.route': '/v1/jobs',
    };
    expect(redactAttributes(attributes)).to.deep.equal({ 'http.route': '/v1/jobs' });
  });

  it("server spans: the caller's address and the request target dropped, the route kept", () => {
    const attributes = {
      'client.address': '192.0.2.7',
      'url.path': '/v1/jobs/job-1',
      'http.target': '/v1/jobs/job-1?x=1',
      'http.route': '/v1/jobs/{id}',
    };
    expect(redactAttributes(attributes, SpanKind.SERVER)).to.deep.equal({ 'http.route': '/v1/jobs/{id}' });
  });

  it('client spans: a URL keeps only its origin (a receiver path may be its secret)', () => {
    expect(redactAttributes({ 'url.full': 'https://hooks.example.com/t/SECRET?x=1' }, SpanKind.CLIENT)).to.deep.equal({
      'url.full': 'https://hooks.example.com',
    });
  });

  it('other spans: a URL keeps its path without query; a client address is kept', () => {
    expect(redactAttributes({ 'http.url': 'https://a.example/p?token=t', 'client.address': '10.0.0.1' }, SpanKind.INTERNAL)).to.deep.equal({
      'http.url': 'https://a.example/p',
      'client.address': '10.0.0.1',
    });
  });

  it('nothing to change: the very same object, no copy', () => {
    const attributes = { 'http.route': '/v1/me', 'http.url': 'https://a.example/p' };
    expect(redactAttributes(attributes)).to.equal(attributes);
  });

  it('a changed span: the input attributes are left as they were', () => {
    const attributes = { 'exception.message': 'boom' };
    redactAttributes(attributes);
    expect(attributes).to.deep.equal({ 'exception.message': 'boom' });
  });
});
