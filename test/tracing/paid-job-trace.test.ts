import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { newKey, newSubject } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { rawToolCall } from '../support/mcp-client';
import { authorize, authorizeParams, oauthTarget, pendingRequestId, registerClient } from '../support/oauth-helpers';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { WebhookReceiver } from '../support/webhook-receiver';
import { webhookEnv } from '../support/webhook-stands';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';
import { KIND, OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';

const hexId = (bytes: number): string => randomBytes(bytes).toString('hex');

/** A caller's span context: a fresh trace id and span id, sampled. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = hexId(16);
  const spanId = hexId(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Attributes that would hold a request's target; a server span names its route by `http.route` instead. */
const REQUEST_TARGET = ['url.path', 'url.full', 'url.query', 'url.original', 'http.target', 'http.url'];

/** Every string a span carries: its name, attributes, events' names and attributes, and its resource. */
function spanText(span: ReceivedSpan): string {
  return JSON.stringify([span.name, span.attributes, span.events, span.resource]);
}

describe('tracing: one trace follows a paid job from the request through the worker to the webhook', function () {
  this.timeout(180_000);
  let redis: TestRedis;
  let otlp: OtlpReceiver;
  let hooks: WebhookReceiver;
  let api: ApiUnderTest;
  let worker: ProcessUnderTest;
  let env: Record<string, string>;
  /** Values that must never appear in a span: filled by the tests as they use them. */
  const secrets: string[] = [];

  before(async () => {
    [redis, otlp, hooks] = await Promise.all([startRedis(), OtlpReceiver.start(), WebhookReceiver.start()]);
    env = redisEnv(redis.url, 'traced:', {
      ...webhookEnv(hooks),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      // Short batches, so that spans arrive within the test's waits.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    // The receiver's path stands for a URL whose path is its secret: only its origin may be recorded.
    secrets.push(env.LINK_SECRET, env.CONNECTOR_SECRET, env.WEBHOOK_SECRET, new URL(hooks.url).pathname);
    // One process per encoding: the API sends protobuf, the worker JSON.
    [api, worker] = await Promise.all([
      startApiProcess({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }),
      startWorkerProcess({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', LOG_LEVEL: 'debug' }),
    ]);
    await waitFor(async () => (await fetch(`${api.baseUrl}/readyz`)).status === 200, { what: 'the API to be ready' });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${worker.metricsPort}/readyz`)).status === 200, {
      what: 'the worker to be ready',
    });
  });

  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await Promise.all([otlp?.close(), hooks?.close(), redis?.stop()]);
  });

  it('a paid REST job with a traceparent is one trace: API server span, Redis, enqueue, worker, processor, webhook', async () => {
    const subject = newSubject();
    const { token } = await api.link(subject);
    const key = newKey();
    const prompt = `prompt-${hexId(8)}`;
    secrets.push(subject, token, key, prompt);
    const caller = callerContext();

    const submitted = await submitPrompt(api, token, prompt, { key, headers: { traceparent: caller.traceparent, tracestate: 'caller=1' } });
    expect(submitted.status, submitted.text).to.equal(202);
    const jobId: string = submitted.body.id;
    const event = await hooks.next((p) => p.type === 'job.succeeded' && p.data?.id === jobId, 'the job.succeeded webhook', 30_000);

    // The receiver got the trace context of the delivery's client span.
    expect(event.traceparent, 'traceparent sent to the webhook receiver').to.match(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    const deliverySpanId = event.traceparent!.split('-')[2];
    // A span is exported when it ends, so the delivery's parents (which end after it) may arrive in later
    // exports: wait until its chain of parents is whole, up to the caller's span.
    const spans = await otlp.waitFor((all) => {
      const trace = all.filter((s) => s.traceId === caller.traceId);
      const ids = new Map(trace.map((s) => [s.spanId, s]));
      let top = ids.get(deliverySpanId);
      while (top && ids.has(top.parentSpanId)) top = ids.get(top.parentSpanId);
      return top?.parentSpanId === caller.spanId ? trace : undefined;
    }, 'the webhook client span and its parents up to the caller');
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
      const chain: ReceivedSpan[] = [];
      for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) chain.push(parent);
      return chain;
    };

    // The API's server span is the caller's span's child.
    const server = spans.find((s) => s.service === 'connector-api' && s.kind === KIND.server && s.attributes['http.route'] === '/v1/jobs');
    expect(server, 'the API server span').to.not.equal(undefined);
    expect(server!.parentSpanId).to.equal(caller.spanId);
    expect(server!.name).to.equal('POST /v1/jobs');
    // Its Redis commands, by command name only.
    const redisSpans = spans.filter((s) => s.service === 'connector-api' && s.attributes['db.system'] === 'redis');
    expect(redisSpans, 'the API Redis spans').to.not.be.empty;
    for (const span of redisSpans) {
      expect(ancestors(span)).to.include(server);
      expect(String(span.attributes['db.statement'])).to.match(/^[a-z]+$/);
    }
    // The enqueue: a producer span under the server span.
    const producer = spans.find((s) => s.service === 'connector-api' && s.kind === KIND.producer);
    expect(producer, 'the enqueue (producer) span').to.not.equal(undefined);
    expect(ancestors(producer!)).to.include(server);
    // The worker's consumer span, in the other process, is the enqueue's child.
    const consumer = spans.find((s) => s.service === 'connector-worker' && s.kind === KIND.consumer && s.name.includes('process'));
    expect(consumer, 'the worker consumer span').to.not.equal(undefined);
    expect(byId.get(consumer!.parentSpanId)?.service, 'the consumer span parent').to.equal('connector-api');
    expect(consumer!.parentSpanId).to.equal(producer!.spanId);
    // The processor's span inside it, its progress as percentages only.
    const processor = spans.find((s) => s.service === 'connector-worker' && s.name === 'processor createJob');
    expect(processor, 'the processor span').to.not.equal(undefined);
    expect(processor!.parentSpanId).to.equal(consumer!.spanId);
    expect(processor!.attributes).to.include({ 'connector.job.id': jobId, 'connector.job.outcome': 'succeeded' });
    const progress = processor!.events.filter((e) => e.name === 'progress');
    expect(progress, 'progress events').to.not.be.empty;
    for (const e of progress) expect(Object.keys(e.attributes)).to.deep.equal(['connector.job.progress.percent']);
    // The webhook delivery's client span, under the worker's spans of this trace.
    const delivery = byId.get(deliverySpanId)!;
    expect(delivery.kind).to.equal(KIND.client);
    expect(delivery.service).to.equal('connector-worker');
    expect(delivery.attributes['url.full']).to.equal(new URL(hooks.url).origin);
    expect(ancestors(delivery)).to.include(consumer);

    // Both encodings were received.
    expect(otlp.requests.protobuf, 'protobuf exports').to.be.greaterThan(0);
    expect(otlp.requests.json, 'JSON exports').to.be.greaterThan(0);
  });

  it('JSON log lines written inside a span carry its trace_id and span_id', async () => {
    const { token } = await api.link(newSubject());
    const caller = callerContext();
    const submitted = await submitPrompt(api, token, 'logged', { headers: { traceparent: caller.traceparent } });
    expect(submitted.status).to.equal(202);
    const jobId: string = submitted.body.id;
    const workerLine = await waitFor(() => worker.logLines().find((line) => line.job_id === jobId && line.msg === 'job started'), {
      what: 'the worker log line of the job',
    });
    const apiLine = await waitFor(() => api.logLines().find((line) => line.trace_id === caller.traceId), {
      what: 'an API log line of the request',
    });
    expect(workerLine.trace_id).to.equal(caller.traceId);
    const spans = await otlp.waitFor((all) => {
      const ids = new Set(all.filter((s) => s.traceId === caller.traceId).map((s) => s.spanId));
      return ids.has(String(workerLine.span_id)) && ids.has(String(apiLine.span_id)) ? ids : undefined;
    }, 'the spans the log lines name');
    expect(spans.size).to.be.greaterThan(1);
    // A line written outside any span has neither field.
    const startup = api.logLines().find((line) => line.trace_id === undefined);
    expect(startup, 'a line outside a span').to.not.equal(undefined);
    expect(startup).to.not.have.property('span_id');
  });

  it('a job in a trace the caller sampled out records no span, yet the worker continues that trace', async () => {
    const { token } = await api.link(newSubject());
    const traceId = hexId(16);
    const submitted = await api.call('POST', '/v1/jobs', {
      token,
      body: { input: { prompt: 'sampled out' } },
      headers: { 'idempotency-key': newKey(), traceparent: `00-${traceId}-${hexId(8)}-00` },
    });
    expect(submitted.status).to.equal(202);
    const jobId: string = submitted.body.id;
    // The trace context crossed the job queue (the worker's lines carry it) and the webhook queue (the
    // delivery sends it on), still sampled out.
    const workerLine = await waitFor(() => worker.logLines().find((line) => line.job_id === jobId && line.msg === 'job started'), {
      what: 'the worker log line of the job',
    });
    expect(workerLine.trace_id).to.equal(traceId);
    const event = await hooks.next((p) => p.type === 'job.succeeded' && p.data?.id === jobId, 'the job.succeeded webhook', 30_000);
    expect(event.traceparent).to.match(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    // A sampled job submitted afterwards: once its delivery's span has arrived, so has anything recorded before it.
    const later = callerContext();
    const next = await submitPrompt(api, token, 'sampled', { headers: { traceparent: later.traceparent } });
    expect(next.status).to.equal(202);
    const delivered = await hooks.next((p) => p.type === 'job.succeeded' && p.data?.id === next.body.id, 'the second webhook', 30_000);
    const deliverySpanId = delivered.traceparent!.split('-')[2];
    const spans = await otlp.waitFor((all) => (all.some((s) => s.spanId === deliverySpanId) ? all : undefined), 'the later delivery span');
    expect(spans.filter((s) => s.traceId === traceId)).to.deep.equal([]);
  });

  it('an MCP tools/call with _meta.traceparent continues that trace into the enqueue', async () => {
    const subject = newSubject();
    const { token } = await api.link(subject);
    const key = newKey();
    const prompt = `mcp-prompt-${hexId(8)}`;
    secrets.push(subject, token, key, prompt);
    const caller = callerContext();
    const call = rawToolCall('create_job', { input: { prompt }, idempotency_key: key }, { meta: { traceparent: caller.traceparent } });
    const res = await fetch(`${api.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...call.headers, authorization: `Bearer ${token}` },
      body: JSON.stringify(call.body),
    });
    expect(res.status, await res.clone().text()).to.equal(200);
    const toolSpan = await otlp.waitFor(
      (all) => all.find((s) => s.traceId === caller.traceId && s.attributes['mcp.method.name'] === 'tools/call'),
      'the tools/call span',
    );
    expect(toolSpan.parentSpanId).to.equal(caller.spanId);
    expect(toolSpan.kind).to.equal(KIND.server);
    expect(toolSpan.name).to.equal('tools/call create_job');
    expect(toolSpan.attributes).to.include({ 'gen_ai.tool.name': 'create_job', 'gen_ai.operation.name': 'execute_tool' });
    // The API's enqueue, not the worker's own (its webhook event, in the same trace, may be exported first).
    const trace = await otlp.waitFor(
      (all) =>
        all.some((s) => s.traceId === caller.traceId && s.kind === KIND.producer && s.service === 'connector-api')
          ? all.filter((s) => s.traceId === caller.traceId)
          : undefined,
      'the enqueue under the tool call',
    );
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const producer = trace.find((s) => s.kind === KIND.producer && s.service === 'connector-api')!;
    const chain: string[] = [];
    for (let parent = byId.get(producer.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) chain.push(parent.spanId);
    expect(chain, 'the enqueue descends from the tool call').to.include(toolSpan.spanId);
  });

  it('OAuth query strings (state, code challenge) are not recorded on server spans', async () => {
    const state = `state-${hexId(8)}`;
    const challenge = `challenge-${hexId(16)}`;
    secrets.push(state, challenge);
    const caller = callerContext();
    const query = new URLSearchParams({ response_type: 'code', client_id: 'unknown-client', state, code_challenge: challenge });
    await fetch(`${api.baseUrl}/oauth/authorize?${query}`, { headers: { traceparent: caller.traceparent }, redirect: 'manual' });
    const span = await otlp.waitFor(
      (all) => all.find((s) => s.traceId === caller.traceId && s.kind === KIND.server),
      'the OAuth server span',
    );
    expect(span.parentSpanId).to.equal(caller.spanId);
    expect(span.name).to.equal('GET /oauth/authorize');
    expect(span.attributes['http.route']).to.equal('/oauth/authorize');
    expect(span.attributes).to.not.have.any.keys(...REQUEST_TARGET);
  });

  it('server spans name the route template and keep no path, id or query: a job id, a consent request id, text a caller chose', async () => {
    const { token } = await api.link(newSubject());
    const submitted = await submitPrompt(api, token, 'ids');
    expect(submitted.status).to.equal(202);
    const jobId: string = submitted.body.id;
    const target = oauthTarget(api, { publicUrl: env.PUBLIC_URL, linkSecret: env.LINK_SECRET });
    const consentRequest = await pendingRequestId(
      await authorize(api.baseUrl, authorizeParams(target, await registerClient(api.baseUrl)).params),
    );
    const chosen = `caller-text-${hexId(8)}`;
    // Values that may appear in no span at all (the job id is recorded by the worker's spans, so it is checked below).
    secrets.push(chosen, consentRequest);
    const cases: Array<{ method: string; path: string; headers?: Record<string, string>; route: string | undefined }> = [
      { method: 'GET', path: `/v1/jobs/${jobId}?note=${chosen}`, headers: { authorization: `Bearer ${token}` }, route: '/v1/jobs/{id}' },
      { method: 'DELETE', path: `/v1/jobs/${jobId}`, headers: { authorization: `Bearer ${token}` }, route: '/v1/jobs/{id}' },
      { method: 'PUT', path: `/v1/jobs/${jobId}`, headers: { authorization: `Bearer ${token}` }, route: '/v1/jobs/{id}' },
      {
        method: 'GET',
        path: `/v1/link/authorizations/${consentRequest}`,
        headers: { 'x-link-secret': env.LINK_SECRET },
        route: '/v1/link/authorizations/{request}',
      },
      { method: 'GET', path: `/v1/jobs/${chosen}`, headers: { authorization: `Bearer ${token}` }, route: '/v1/jobs/{id}' },
      { method: 'GET', path: `/v1/${chosen}/more?${chosen}=${chosen}`, route: undefined },
      { method: 'POST', path: `/${chosen}`, route: undefined },
      { method: 'POST', path: `/OAuth/Token/?${chosen}`, route: '/oauth/token' },
    ];
    for (const { method, path, headers, route } of cases) {
      const caller = callerContext();
      const res = await fetch(`${api.baseUrl}${path}`, { method, headers: { ...headers, traceparent: caller.traceparent } });
      await res.arrayBuffer();
      const span = await otlp.waitFor(
        (all) => all.find((s) => s.traceId === caller.traceId && s.parentSpanId === caller.spanId && s.kind === KIND.server),
        `the server span of ${method} ${path}`,
      );
      const what = `${method} ${path} (${res.status})`;
      expect(span.name, what).to.equal(route === undefined ? method : `${method} ${route}`);
      expect(span.attributes['http.route'], what).to.equal(route);
      expect(String(span.attributes['http.response.status_code']), what).to.equal(String(res.status));
      expect(span.attributes, what).to.not.have.any.keys(...REQUEST_TARGET);
      const text = spanText(span);
      for (const value of [jobId, consentRequest, chosen]) expect(text.includes(value), `${what} carries ${value}`).to.equal(false);
    }
  });

  it('no exported span carries a subject, token, secret, idempotency key, prompt or OAuth parameter', () => {
    expect(secrets.length).to.be.greaterThan(8);
    expect(otlp.spans.length).to.be.greaterThan(10);
    for (const span of otlp.spans) {
      const text = spanText(span);
      for (const secret of secrets) expect(text.includes(secret), `${span.name} carries a value it must not`).to.equal(false);
      // Client addresses stay out of server spans.
      if (span.kind === KIND.server) expect(span.attributes).to.not.have.any.keys('net.peer.ip', 'client.address');
    }
  });
});

describe('tracing off: no OTLP endpoint, nothing exported', function () {
  this.timeout(120_000);
  let redis: TestRedis;
  let otlp: OtlpReceiver;
  let api: ApiUnderTest;
  let worker: ProcessUnderTest;

  before(async () => {
    [redis, otlp] = await Promise.all([startRedis(), OtlpReceiver.start()]);
    // Every tracing variable but the endpoint: tracing stays off.
    const env = redisEnv(redis.url, 'untraced:', {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'should-not-appear',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    [api, worker] = await Promise.all([startApiProcess(env), startWorkerProcess({ ...env, LOG_LEVEL: 'debug' })]);
  });

  after(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    await Promise.all([otlp?.close(), redis?.stop()]);
  });

  it('a job submitted with a traceparent runs to the end and no request reaches the receiver; no log line has a trace_id', async () => {
    const { token } = await api.link(newSubject());
    const caller = callerContext();
    const submitted = await submitPrompt(api, token, 'untraced', { headers: { traceparent: caller.traceparent } });
    expect(submitted.status).to.equal(202);
    const jobId: string = submitted.body.id;
    await pollJob(api, token, jobId, inStatus('succeeded'));
    await waitFor(() => worker.logLines().find((line) => line.job_id === jobId && line.msg === 'job succeeded'), {
      what: 'the worker to log the job',
    });
    // Stopping flushes whatever an SDK would have buffered: still nothing.
    await Promise.all([api.stop(), worker.stop()]);
    expect(otlp.requestCount).to.equal(0);
    const lines = [...api.logLines(), ...worker.logLines()];
    expect(lines.length).to.be.greaterThan(3);
    expect(lines.filter((line) => 'trace_id' in line || 'span_id' in line)).to.deep.equal([]);
  });
});
