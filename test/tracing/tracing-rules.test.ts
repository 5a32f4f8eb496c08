import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-node';
import { expect } from 'chai';
import { loadTracingSettings } from '../../shared/platform/config/tracing-settings';
import { redactAttributes, withoutQuery } from '../../shared/platform/tracing/redacting-exporter';
import { samplerFor } from '../../shared/platform/tracing/trace-sampler';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

describe('tracing settings', () => {
  it('without an endpoint tracing is off, whatever else is set', () => {
    const problems: Array<{ name: string; reason: string }> = [];
    expect(loadTracingSettings({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }, problems)).to.equal(undefined);
    expect(problems).to.deep.equal([]);
  });

  it('either endpoint turns it on, with parent-based sampling at ratio 1 and protobuf by default', () => {
    for (const [name, field] of [
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'endpoint'],
      ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'tracesEndpoint'],
    ]) {
      expect(loadTracingSettings({ [name]: 'http://collector:4318' }, [])).to.deep.equal({
        [field]: 'http://collector:4318',
        protocol: 'http/protobuf',
        sampler: 'parentbased_always_on',
        samplerRatio: 1,
      });
    }
  });

  it('refuses gRPC, an unknown sampler, a ratio above 1, a relative endpoint and malformed headers, by name and without the value', () => {
    const problems: Array<{ name: string; reason: string }> = [];
    const settings = loadTracingSettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector-secret-host:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '1.5',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key-without-value',
      },
      problems,
    );
    expect(settings).to.equal(undefined);
    expect(problems.map((p) => p.name).sort()).to.deep.equal([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
    ]);
    expect(JSON.stringify(problems)).to.not.match(/collector-secret-host|api-key-without-value|sometimes/);
  });
});

describe('span redaction', () => {
  it('URLs lose their query, fragment and credentials; the path is kept', () => {
    expect(withoutQuery('https://user:pw@hooks.example.com/in?token=abc#x')).to.equal('https://hooks.example.com/in');
    expect(withoutQuery('/oauth/authorize?state=s&code_challenge=c')).to.equal('/oauth/authorize');
    expect(withoutQuery('/v1/me')).to.equal('/v1/me');
  });

  it("drops BullMQ's job result and progress, exception messages and url.query, and client addresses and the URL on server spans only", () => {
    const attributes = {
      'bullmq.job.result': '{"echo":"prompt"}',
      'bullmq.job.progress': '{"message":"quoting input"}',
      'bullmq.job.id': 'job_1',
      'exception.message': 'bad input: prompt',
      'exception.type': 'Error',
      'url.query': 'state=s',
      'url.full': 'https://r.example.com/h?t=1',
      'client.address': '203.0.113.9',
    };
    expect(redactAttributes(attributes, SpanKind.SERVER)).to.deep.equal({
      'bullmq.job.id': 'job_1',
      'exception.type': 'Error',
    });
    expect(redactAttributes(attributes, SpanKind.INTERNAL)).to.deep.include({ 'url.full': 'https://r.example.com/h' });
    expect(redactAttributes(attributes, SpanKind.CLIENT)).to.have.property('client.address', '203.0.113.9');
    // An outgoing request keeps the receiver's origin only: a webhook URL's path may be its secret.
    expect(redactAttributes({ 'url.full': 'https://hooks.example.com/T0/B1/s3cr3t?x=1' }, SpanKind.CLIENT)).to.deep.equal({
      'url.full': 'https://hooks.example.com',
    });
  });

  it('a server span keeps its http.route and loses every attribute holding the request target: path, ids in it, query', () => {
    const target = {
      'url.path': '/v1/jobs/job_abc',
      'http.target': '/v1/jobs/job_abc?note=x',
      'url.full': 'http://connector.example.com/v1/jobs/job_abc',
      'http.url': 'http://connector.example.com/v1/jobs/job_abc',
      'url.original': '/v1/jobs/job_abc',
      'url.query': 'note=x',
    };
    expect(redactAttributes({ ...target, 'http.route': '/v1/jobs/{id}', 'http.request.method': 'GET' }, SpanKind.SERVER)).to.deep.equal({
      'http.route': '/v1/jobs/{id}',
      'http.request.method': 'GET',
    });
  });

  it('returns the same object when there is nothing to redact (no copy per span)', () => {
    const clean = { 'http.route': '/v1/jobs', 'db.system': 'redis' };
    expect(redactAttributes(clean, SpanKind.SERVER)).to.equal(clean);
  });
});

describe('trace sampling', () => {
  const sampled = (sampler: ReturnType<typeof samplerFor>, name: string, parent = ROOT_CONTEXT) =>
    sampler.shouldSample(parent, TRACE_ID, name, SpanKind.INTERNAL, {}, []).decision;
  const remoteParent = (flags: TraceFlags) =>
    trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags: flags, isRemote: true });

  it("parent-based: follows the caller's sampled flag, whatever the ratio", () => {
    const sampler = samplerFor({ sampler: 'parentbased_traceidratio', samplerRatio: 0 });
    expect(sampled(sampler, 'POST', remoteParent(TraceFlags.SAMPLED))).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
    expect(sampled(sampler, 'POST', remoteParent(TraceFlags.NONE))).to.equal(SamplingDecision.NOT_RECORD);
    expect(sampled(sampler, 'POST')).to.equal(SamplingDecision.NOT_RECORD);
  });

  it("never starts a trace at BullMQ's housekeeping, but keeps it inside a sampled trace", () => {
    const sampler = samplerFor({ sampler: 'parentbased_always_on', samplerRatio: 1 });
    expect(sampled(sampler, 'getNextJob jobs-0')).to.equal(SamplingDecision.NOT_RECORD);
    expect(sampled(sampler, 'moveStalledJobsToWait webhooks')).to.equal(SamplingDecision.NOT_RECORD);
    expect(sampled(sampler, 'add jobs-0.createJob')).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
    expect(sampled(sampler, 'getNextJob jobs-0', remoteParent(TraceFlags.SAMPLED))).to.equal(SamplingDecision.RECORD_AND_SAMPLED);
  });
});
