import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import {
  BASE_ENV,
  type CallOptions,
  type CallResult,
  type ConnectorUnderTest,
  newKey,
  newSubject,
  startConnector,
} from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { type JobClient, submitPrompt } from '../support/job-submission';
import { postLink } from '../support/link-requests';
import { connectMcp } from '../support/mcp-client';
import {
  CONTRACT_METRICS,
  HTTP_BUCKETS,
  JOB_OUTCOMES,
  QUEUE_STATES,
  REFUND_REASONS,
  sampleNames,
  UNAUTHORIZED_REASONS,
} from '../support/metric-contract';
import { deltas, type Exposition, type Labels, samplesOf, scrape, seriesKey, sumOf } from '../support/prometheus-text';
import { scriptedJobs } from '../support/scripted-jobs';

/** Every sample name of the contract metrics, except the queue gauge (a level, not a count) and histogram sums. */
const COUNTED = Object.entries(CONTRACT_METRICS).flatMap(([name, { type }]) =>
  type === 'counter' ? [name] : type === 'histogram' ? [`${name}_count`, `${name}_bucket`] : [],
);

/** A processor gate the test opens: jobs with prompt "hold" run until `release()` is called. */
function gate() {
  let open!: () => void;
  let opened = new Promise<void>((resolve) => (open = resolve));
  return {
    wait: () => opened,
    release: () => {
      open();
      opened = new Promise<void>((resolve) => (open = resolve));
    },
  };
}

const held = gate();

/** The registry with createJob's processor failing for prompt "fail" and waiting on the gate for "hold". */
const SCRIPTED_JOBS = scriptedJobs({ hold: () => held.wait() });

/** What a test expects to change: series key → exact delta. */
class Expected {
  readonly map = new Map<string, number>();
  add(name: string, labels: Labels, by = 1): this {
    if (by === 0) return this;
    const key = seriesKey({ name, labels });
    this.map.set(key, (this.map.get(key) ?? 0) + by);
    return this;
  }
  /** A finished request: counted by method, route and status, and timed once (its +Inf bucket too). */
  request(method: string, route: string, status: number): this {
    this.add('connector_http_requests_total', { method, route, status: String(status) });
    this.add('connector_http_request_duration_seconds_count', { method, route });
    return this.add('connector_http_request_duration_seconds_bucket', { method, route, le: '+Inf' });
  }
  histogram(name: string, labels: Labels, by = 1): this {
    this.add(`${name}_count`, labels, by);
    return this.add(`${name}_bucket`, { ...labels, le: '+Inf' }, by);
  }
}

/** Only the +Inf buckets take part in exact comparisons: which finite bucket a duration falls in is timing. */
function comparable(changes: Map<string, number>): Map<string, number> {
  return new Map([...changes].filter(([key]) => !key.includes('_bucket{') || key.includes('le="+Inf"')));
}

function sorted(map: Map<string, number>): Array<[string, number]> {
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}

for (const backend of BACKENDS) {
  describe(`Prometheus metrics of the API [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let expected: Expected;
    let baseline: Exposition;

    beforeEach(async () => {
      expected = new Expected();
    });

    /** One request through the checked client, remembered in `expected` under its route template. */
    const call = async (method: string, path: string, route: string, options: CallOptions = {}): Promise<CallResult> => {
      const res = await c.call(method, path, options);
      expected.request(method, route, res.status);
      return res;
    };
    /** The checked client as the job helpers take it: each request remembered under its route template. */
    const counted: JobClient = {
      call: (method, path, options) => call(method, path, path.replace(/^\/v1\/jobs\/[^/]+$/, '/v1/jobs/{id}'), options),
    };

    /** Asserts that, since `baseline`, exactly the expected counts moved and nothing else. */
    const expectExactDeltas = async (): Promise<Exposition> => {
      const after = await scrape(c.metricsUrl);
      expect(sorted(comparable(deltas(baseline, after, COUNTED)))).to.deep.equal(sorted(comparable(expected.map)));
      return after;
    };

    // The harness runs jobs inside the API process on both backends (on Redis through startApi's in-process
    // worker), so this one registry also counts job completions. worker-metrics.test.ts covers a separate worker.
    before(async () => {
      c = await startConnector(backend, { PLACEHOLDER_JOB_MS: '20' }, { operations: SCRIPTED_JOBS });
    });
    after(async () => {
      held.release();
      await c.close();
    });

    it('a fresh API declares every contract metric with its contract type, plus Node default metrics', async () => {
      const page = await scrape(c.metricsUrl);
      for (const [name, { type }] of Object.entries(CONTRACT_METRICS)) expect(page.types.get(name), name).to.equal(type);
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_version_info',
      ]) {
        expect(page.types.has(name), name).to.equal(true);
      }
      expect(samplesOf(page, 'nodejs_version_info')[0]?.labels.version).to.equal(process.version);
    });

    it('a real Metrics registry declares each contract metric with exactly the contract label names', () => {
      const registry = new Metrics({ defaultMetrics: false }).registry;
      for (const [name, { labels }] of Object.entries(CONTRACT_METRICS)) {
        const metric = registry.getSingleMetric(name) as unknown as { labelNames: string[] } | undefined;
        expect(metric, name).to.not.equal(undefined);
        expect([...metric!.labelNames].sort(), name).to.deep.equal([...labels].sort());
      }
    });

    it(`connector_redis_up is ${backend === 'memory' ? 'absent without Redis, so no Redis-down alert can fire' : '1 while Redis answers'}`, async () => {
      const page = await scrape(c.metricsUrl);
      const samples = samplesOf(page, 'connector_redis_up');
      if (backend === 'memory') expect(samples).to.deep.equal([]);
      else expect(samples.map((s) => s.value)).to.deep.equal([1]);
    });

    it('a timed request lands in latency buckets from 1 ms to 10 s plus +Inf, cumulative up to the count', async () => {
      await call('GET', '/openapi.json', '/openapi.json');
      const page = await scrape(c.metricsUrl);
      const buckets = samplesOf(page, 'connector_http_request_duration_seconds_bucket').filter((s) => s.labels.route === '/openapi.json');
      expect(buckets.map((s) => s.labels.le)).to.deep.equal(HTTP_BUCKETS);
      const values = buckets.map((s) => s.value);
      expect(values).to.deep.equal([...values].sort((a, b) => a - b));
      expect(values.at(-1)).to.equal(sumOf(page, 'connector_http_request_duration_seconds_count', { route: '/openapi.json' }));
    });

    it('3 new jobs, 2 retries and 1 conflicting key: submitted +3, replayed +2, charged +3, conflicts +1, and only those move', async () => {
      baseline = await scrape(c.metricsUrl);
      const token = (await postLink(counted.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token as string;
      const keys = [newKey(), newKey(), newKey()];
      const created = [];
      for (const [i, key] of keys.entries())
        created.push((await submitPrompt(counted, token, `job number ${i}`, { key })).body.id as string);
      expect((await submitPrompt(counted, token, 'job number 0', { key: keys[0] })).headers.get('idempotent-replayed')).to.equal('true');
      expect((await submitPrompt(counted, token, 'job number 1', { key: keys[1] })).headers.get('idempotent-replayed')).to.equal('true');
      expect((await submitPrompt(counted, token, 'not the same payload', { key: keys[2] })).status).to.equal(422);
      for (const id of created) expect((await pollJob(counted, token, id, inStatus('succeeded', 'failed'))).status).to.equal('succeeded');

      expected.add('connector_tokens_issued_total', {});
      expected.add('connector_jobs_submitted_total', { operation: 'createJob' }, 3);
      expected.add('connector_jobs_replayed_total', { operation: 'createJob' }, 2);
      expected.add('connector_credits_charged_total', { operation: 'createJob' }, 3);
      expected.add('connector_idempotency_conflicts_total', { operation: 'createJob' }, 1);
      expected.add('connector_jobs_completed_total', { operation: 'createJob', outcome: 'succeeded' }, 3);
      expected.histogram('connector_job_wait_seconds', { operation: 'createJob' }, 3);
      expected.histogram('connector_job_duration_seconds', { operation: 'createJob' }, 3);
      const after = await expectExactDeltas();
      // 3 jobs of about PLACEHOLDER_JOB_MS (20 ms) each; timers may fire a millisecond early, hence 15 ms.
      const ran = sumOf(after, 'connector_job_duration_seconds_sum') - sumOf(baseline, 'connector_job_duration_seconds_sum');
      expect(ran).to.be.at.least(3 * 0.015);
    });

    it('a job that fails moves completed{outcome="failed"} +1, refunded{reason="failed"} by its cost and its wait and run-time histograms by one', async () => {
      baseline = await scrape(c.metricsUrl);
      const token = (await postLink(counted.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token as string;
      const job = await submitPrompt(counted, token, 'fail');
      const failed = await pollJob(counted, token, job.body.id, inStatus('succeeded', 'failed'));
      expect(failed).to.include({ status: 'failed', attempts: 1 });

      expected.add('connector_tokens_issued_total', {});
      expected.add('connector_jobs_submitted_total', { operation: 'createJob' });
      expected.add('connector_credits_charged_total', { operation: 'createJob' });
      expected.add('connector_jobs_completed_total', { operation: 'createJob', outcome: 'failed' });
      expected.add('connector_credits_refunded_total', { operation: 'createJob', reason: 'failed' }, failed.cost);
      expected.histogram('connector_job_wait_seconds', { operation: 'createJob' });
      expected.histogram('connector_job_duration_seconds', { operation: 'createJob' });
      await expectExactDeltas();
    });

    it('3 links, revoking 2 connections and refused credentials move tokens, revocations and auth failures by reason exactly', async () => {
      baseline = await scrape(c.metricsUrl);
      const revokedSubject = newSubject();
      const first = (await postLink(counted.call, { subject: revokedSubject, secret: BASE_ENV.LINK_SECRET })).body;
      await postLink(counted.call, { subject: revokedSubject, secret: BASE_ENV.LINK_SECRET });
      const kept = (await postLink(counted.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token as string;
      const revoke = (body: unknown, secret: string = BASE_ENV.LINK_SECRET) =>
        call('POST', '/v1/link/revoke', '/v1/link/revoke', { body, headers: { 'x-link-secret': secret } });
      expect((await revoke({ subject: revokedSubject })).body).to.deep.equal({ revoked: 2 });
      expect((await revoke({ connection_id: first.connection_id })).body).to.deep.equal({ revoked: 0 });

      const me = (options: CallOptions) => call('GET', '/v1/me', '/v1/me', options);
      const key = deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey;
      const past = Math.floor(Date.now() / 1000) - 3600;
      const expired = jwt.sign({ iat: past - 60, exp: past }, key, {
        algorithm: 'HS256',
        issuer: BASE_ENV.PUBLIC_URL,
        audience: BASE_ENV.PUBLIC_URL,
        subject: 'someone',
        jwtid: 'conn_x',
      });
      const statuses = [
        (await me({})).status, // missing
        (await me({ headers: { authorization: 'Basic dXNlcjpwYXNz' } })).status, // invalid: not a bearer
        (await me({ token: 'not-a-jwt' })).status, // invalid: does not verify
        (await me({ token: expired })).status, // expired
        (await me({ token: first.token })).status, // revoked
        (await postLink(counted.call, { subject: newSubject(), secret: 'wrong-link-secret' })).status, // bad_link_secret
        (await postLink(counted.call, { subject: newSubject(), secret: null })).status, // bad_link_secret: no header
        (await revoke({ subject: 'x' }, 'also-wrong')).status, // bad_link_secret
      ];
      expect(statuses).to.deep.equal(Array(8).fill(401));
      expect((await me({ token: kept })).status).to.equal(200);

      expected.add('connector_tokens_issued_total', {}, 3);
      expected.add('connector_connections_revoked_total', {}, 2);
      expected.add('connector_auth_failures_total', { reason: 'missing' });
      expected.add('connector_auth_failures_total', { reason: 'invalid' }, 2);
      expected.add('connector_auth_failures_total', { reason: 'expired' });
      expected.add('connector_auth_failures_total', { reason: 'revoked' });
      expected.add('connector_auth_failures_total', { reason: 'bad_link_secret' }, 3);
      const after = await expectExactDeltas();
      const reasons = new Set(samplesOf(after, 'connector_auth_failures_total').map((s) => s.labels.reason));
      expect([...reasons].sort()).to.deep.equal([...UNAUTHORIZED_REASONS].sort());
    });

    it('1,000 requests to distinct job ids add no route label: all count under /v1/jobs/{id}', async () => {
      const token = (await postLink(counted.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token as string;
      await call('GET', '/v1/jobs/job_warmup', '/v1/jobs/{id}', { token });
      baseline = await scrape(c.metricsUrl);
      expected = new Expected();
      const ids = Array.from({ length: 1000 }, () => `job_${randomBytes(12).toString('hex')}`);
      for (let i = 0; i < ids.length; i += 50) {
        const answers = await Promise.all(ids.slice(i, i + 50).map((id) => call('GET', `/v1/jobs/${id}`, '/v1/jobs/{id}', { token })));
        expect(answers.map((a) => a.status)).to.deep.equal(Array(answers.length).fill(404));
      }
      const after = await expectExactDeltas();
      const perSeries = deltas(baseline, after, ['connector_http_requests_total', 'connector_http_request_duration_seconds_count']);
      expect(sorted(perSeries)).to.deep.equal([
        ['connector_http_request_duration_seconds_count{method="GET",route="/v1/jobs/{id}"}', 1000],
        ['connector_http_requests_total{method="GET",route="/v1/jobs/{id}",status="404"}', 1000],
      ]);
      const routes = (page: Exposition) =>
        new Set(page.samples.filter((s) => s.name.startsWith('connector_http_')).map((s) => s.labels.route));
      expect([...routes(after)].sort()).to.deep.equal([...routes(baseline)].sort());
      for (const name of ['connector_http_requests_total', 'connector_http_request_duration_seconds_bucket']) {
        expect(samplesOf(after, name).length, name).to.equal(samplesOf(baseline, name).length);
      }
      const page = await (await fetch(c.metricsUrl)).text();
      expect(ids.filter((id) => page.includes(id))).to.deep.equal([]);
    });

    it('requests to unknown paths count under route="unmatched", and an unknown method under method="OTHER"', async () => {
      const token = (await postLink(counted.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token as string;
      baseline = await scrape(c.metricsUrl);
      expected = new Expected();
      for (let i = 0; i < 100; i++) {
        const res = await call(
          'GET',
          i % 2 ? `/v1/nope-${randomBytes(4).toString('hex')}` : `/${randomBytes(6).toString('hex')}/x`,
          'unmatched',
          { token },
        );
        expect(res.status).to.equal(404);
      }
      const propfind = await fetch(`${c.baseUrl}/v1/me`, { method: 'PROPFIND', headers: { authorization: `Bearer ${token}` } });
      expect(propfind.status).to.equal(405);
      expected.request('OTHER', '/v1/me', 405);
      const after = await expectExactDeltas();
      expect(
        sumOf(after, 'connector_http_requests_total', { route: 'unmatched' }) -
          sumOf(baseline, 'connector_http_requests_total', { route: 'unmatched' }),
      ).to.equal(100);
    });

    it('after a session every sample of a contract metric carries exactly its contract labels, with known values', async () => {
      // A short session that moves every counter the API owns: link, revoke, a refused token, a job, its replay, a conflict.
      const subject = newSubject();
      const token = (await postLink(counted.call, { subject, secret: BASE_ENV.LINK_SECRET })).body.token as string;
      const key = newKey();
      const job = (await submitPrompt(counted, token, 'labels', { key })).body.id as string;
      await submitPrompt(counted, token, 'labels', { key });
      expect((await submitPrompt(counted, token, 'other payload', { key })).status).to.equal(422);
      await pollJob(counted, token, job, inStatus('succeeded', 'failed'));
      const mcp = await connectMcp(`${c.baseUrl}/mcp`, token, '2026-07-28');
      await mcp.callTool({ name: 'get_me', arguments: {} });
      await mcp.close();
      await call('POST', '/v1/link/revoke', '/v1/link/revoke', { body: { subject }, headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } });
      expect((await call('GET', '/v1/me', '/v1/me', { token })).status).to.equal(401);

      const page = await scrape(c.metricsUrl);
      for (const [family, { type, labels }] of Object.entries(CONTRACT_METRICS)) {
        for (const name of sampleNames(family, type)) {
          const want = [...labels, ...(name.endsWith('_bucket') ? ['le'] : [])].sort();
          for (const sample of samplesOf(page, name)) expect(Object.keys(sample.labels).sort(), seriesKey(sample)).to.deep.equal(want);
        }
      }
      const values = (name: string, label: string) => new Set(samplesOf(page, name).map((s) => s.labels[label]));
      expect([...values('connector_queue_jobs', 'state')].sort()).to.deep.equal([...QUEUE_STATES].sort());
      for (const outcome of values('connector_jobs_completed_total', 'outcome')) expect(JOB_OUTCOMES).to.include(outcome);
      for (const reason of values('connector_credits_refunded_total', 'reason')) expect(REFUND_REASONS).to.include(reason);
      for (const outcome of values('connector_mcp_tool_calls_total', 'outcome')) expect(['ok', 'error']).to.include(outcome);
      for (const route of values('connector_http_requests_total', 'route')) expect(route).to.match(/^(unmatched|\/[a-z0-9/._{}-]*)$/);
      for (const status of values('connector_http_requests_total', 'status')) expect(status).to.match(/^[1-5][0-9][0-9]$/);
      // The session above made every counter move at least once (the over-budget one needs DAILY_CREDIT_LIMIT:
      // spend-cap.test.ts moves it; the webhook one needs a receiver: test/webhooks moves it; the cancel and
      // refund ones need a job canceled or failed: test/http/cancel-jobs.test.ts moves them; the previous-secret
      // one needs a rotation's overlap: test/http/secret-overlap.test.ts moves it; the credit ones need prepaid
      // billing: test/http/credits.test.ts moves the granted one, the lifecycle of a prepaid job the others).
      const elsewhere = [
        'connector_previous_secret_uses_total',
        'connector_jobs_over_budget_total',
        'connector_webhook_deliveries_total',
        'connector_jobs_canceled_total',
        'connector_credits_refunded_total',
        'connector_credits_granted_total',
        'connector_credits_captured_total',
        'connector_credits_released_total',
        // Only with X402=on: test/http/x402-payments.test.ts moves it.
        'connector_x402_payments_total',
      ];
      for (const [family, { type }] of Object.entries(CONTRACT_METRICS)) {
        if (type !== 'counter' || family.startsWith('connector_redis_') || elsewhere.includes(family)) continue;
        expect(sumOf(page, family), family).to.be.greaterThan(0);
      }
    });

    it('queue depth by state is read on each scrape: a held job shows as running, then as succeeded', async () => {
      const depth = async () => {
        const page = await scrape(c.metricsUrl);
        return Object.fromEntries(QUEUE_STATES.map((state) => [state, sumOf(page, 'connector_queue_jobs', { state })]));
      };
      const start = await depth();
      expect({ queued: start.queued, running: start.running }).to.deep.equal({ queued: 0, running: 0 });
      const token = (await postLink(counted.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET })).body.token as string;
      const job = (await submitPrompt(counted, token, 'hold')).body.id as string;
      await pollJob(c, token, job, inStatus('running'));
      expect(await depth()).to.deep.equal({ ...start, running: 1 });
      held.release();
      expect((await pollJob(counted, token, job, inStatus('succeeded', 'failed'))).status).to.equal('succeeded');
      expect(await depth()).to.deep.equal({ ...start, succeeded: start.succeeded + 1 });
    });

    it('the metrics port is a listener of its own: /metrics is a 404 on the API port, and the API is not on the metrics port', async () => {
      const apiPort = new URL(c.baseUrl).port;
      const metricsPort = new URL(c.metricsUrl).port;
      expect(metricsPort).to.not.equal(apiPort);
      const onApi = await c.call('GET', '/metrics');
      expect(onApi.status).to.equal(404);
      expect(onApi.text).to.not.include('connector_http_requests_total');
      const metricsBase = c.metricsUrl.replace(/\/metrics$/, '');
      for (const path of ['/v1/me', '/openapi.json', '/llms.txt', '/'])
        expect((await fetch(`${metricsBase}${path}`)).status, path).to.equal(404);
      expect((await fetch(c.metricsUrl, { method: 'POST' })).status).to.equal(405);
      const ok = await fetch(c.metricsUrl);
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    });
  });
}
