import { expect } from 'chai';
import { PAID_JOBS } from '../../shared/contract/operations/paid-jobs';
import { loadConfig } from '../../shared/platform/config/config';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { createLogger } from '../../shared/platform/logging/logger';
import { type RunningWorker, startWorker } from '../../worker/start-worker';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { LogCapture } from '../support/log-capture';
import { deltas, samplesOf, scrape, sumOf } from '../support/prometheus-text';
import { waitFor } from '../testkit/wait-for';

/** The job-side counters and histogram counts; the worker owns these when the API only enqueues. */
const JOB_SIDE = ['connector_jobs_completed_total', 'connector_job_wait_seconds_count', 'connector_job_duration_seconds_count'];

// The worker needs Redis by design, so this suite runs on the redis backend only: an API that only enqueues
// (runWorker: false, as `npm start` runs it) and a separate worker on the same private Redis.
describe('Prometheus metrics and logs of a separate worker [redis]', () => {
  let api: ConnectorUnderTest;
  let worker: RunningWorker;
  let workerMetricsUrl: string;
  const workerLogs = new LogCapture();

  before(async () => {
    api = await startConnector('redis', { PLACEHOLDER_JOB_MS: '20' }, { runWorker: false });
    const env = {
      ...BASE_ENV,
      PLACEHOLDER_JOB_MS: '20',
      REDIS_URL: connectionUrl(api.config.redis)!,
      REDIS_KEY_PREFIX: api.config.redisKeyPrefix,
    };
    const config = loadConfig(env, 'worker');
    // At debug, to see each job's start and success lines.
    worker = await startWorker(config, createLogger('debug', 'connector-worker-test', workerLogs), { jobs: PAID_JOBS, env });
    workerMetricsUrl = `http://127.0.0.1:${worker.metricsPort}/metrics`;
  });
  after(async () => {
    await worker?.close();
    await api?.close();
  });

  it('the worker serves /metrics, /healthz and /readyz on its metrics port, with connector_redis_up 1', async () => {
    // The worker starts without waiting for Redis; its client reports up once connected.
    const page = await waitFor(
      async () => {
        const scraped = await scrape(workerMetricsUrl);
        return sumOf(scraped, 'connector_redis_up') === 1 ? scraped : undefined;
      },
      { what: 'the worker to report Redis up' },
    );
    expect(samplesOf(page, 'connector_redis_up').map((s) => s.value)).to.deep.equal([1]);
    expect(page.types.get('connector_jobs_completed_total')).to.equal('counter');
    expect(page.types.has('process_cpu_user_seconds_total')).to.equal(true);
    const base = workerMetricsUrl.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/healthz`)).status).to.equal(200);
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    expect((await fetch(`${base}/v1/me`)).status).to.equal(404);
  });

  it('3 jobs and 1 retry: the API counts submitted +3 and replayed +1, the worker completed +3 and 3 waits and run times', async () => {
    const apiBefore = await scrape(api.metricsUrl);
    const workerBefore = await scrape(workerMetricsUrl);
    const token = await api.link(newSubject());
    const keys = [newKey(), newKey(), newKey()];
    const ids: string[] = [];
    for (const key of keys) {
      const res = await submitPrompt(api, token, `worker ${key}`, { key });
      expect(res.status).to.equal(202);
      ids.push(res.body.id);
    }
    const retry = await submitPrompt(api, token, `worker ${keys[0]}`, { key: keys[0] });
    expect(retry.headers.get('idempotent-replayed')).to.equal('true');
    for (const id of ids) {
      await pollJob(api, token, id, inStatus('succeeded'));
    }
    const apiAfter = await scrape(api.metricsUrl);
    const workerAfter = await scrape(workerMetricsUrl);

    expect([...deltas(workerBefore, workerAfter, JOB_SIDE)].sort()).to.deep.equal([
      ['connector_job_duration_seconds_count{operation="createJob"}', 3],
      ['connector_job_wait_seconds_count{operation="createJob"}', 3],
      ['connector_jobs_completed_total{operation="createJob",outcome="succeeded"}', 3],
    ]);
    // 3 jobs of about PLACEHOLDER_JOB_MS (20 ms) each; timers may fire a millisecond early, hence 15 ms.
    expect(
      sumOf(workerAfter, 'connector_job_duration_seconds_sum') - sumOf(workerBefore, 'connector_job_duration_seconds_sum'),
    ).to.be.at.least(3 * 0.015);
    // The API only enqueues: it counts the submissions and none of the completions.
    expect([...deltas(apiBefore, apiAfter, JOB_SIDE)]).to.deep.equal([]);
    expect(
      [
        ...deltas(apiBefore, apiAfter, [
          'connector_jobs_submitted_total',
          'connector_jobs_replayed_total',
          'connector_credits_charged_total',
        ]),
      ].sort(),
    ).to.deep.equal([
      ['connector_credits_charged_total{operation="createJob"}', 3],
      ['connector_jobs_replayed_total{operation="createJob"}', 1],
      ['connector_jobs_submitted_total{operation="createJob"}', 3],
    ]);
    // The worker answers no HTTP requests, so it has no request series at all.
    expect(samplesOf(workerAfter, 'connector_http_requests_total')).to.deep.equal([]);

    // Its log: JSON lines, each job started and succeeded with its id and operation, both at debug (20), so
    // that at the default info level a job that succeeds writes no line.
    const lines = workerLogs.lines.map((line) => JSON.parse(line));
    for (const id of ids) {
      const messages = lines.filter((line) => line.job_id === id).map((line) => [line.msg, line.operation, line.level]);
      expect(messages, id).to.deep.equal([
        ['job started', 'createJob', 20],
        ['job succeeded', 'createJob', 20],
      ]);
    }
  });
});
