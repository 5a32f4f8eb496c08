import { expect } from 'chai';
import { Metrics } from '../../../../../shared/platform/metrics/metrics';

/** The samples of one metric as `labels → value` (label values joined by commas), histogram counts for histograms. */
async function samples(metrics: Metrics, name: string): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const out: Record<string, number> = {};
  for (const sample of metric.values) {
    const { metricName, labels, value } = sample as { metricName?: string; labels: Record<string, string | number>; value: number };
    if (metricName !== undefined && !metricName.endsWith('_count') && String(metric.type) === 'histogram') continue;
    out[Object.values(labels).join(',')] = value;
  }
  return out;
}

describe('Metrics', () => {
  it('two instances have registries of their own, so several apps in one process do not mix their counts', async () => {
    const [a, b] = [new Metrics({ defaultMetrics: false }), new Metrics({ defaultMetrics: false })];
    a.httpRequests.inc({ method: 'GET', route: '/v1/me', status: '200' });
    expect(await samples(a, 'connector_http_requests_total')).to.deep.equal({ 'GET,/v1/me,200': 1 });
    expect(await samples(b, 'connector_http_requests_total')).to.deep.equal({});
  });

  it('without default metrics: no process_* series; with them: present', async () => {
    expect(await new Metrics({ defaultMetrics: false }).registry.metrics()).to.not.contain('process_cpu');
    expect(await new Metrics().registry.metrics()).to.contain('process_cpu');
  });

  it('recordPreviousSecrets: one gauge sample per secret, 1 when configured and 0 when not', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.recordPreviousSecrets({ connector: true, link: false, webhook: true });
    expect(await samples(metrics, 'connector_previous_secret_configured')).to.deep.equal({ connector: 1, link: 0, webhook: 1 });
  });

  it('recordJobEnd: the outcome counted even without a run time; a cancel counted as canceled too', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.recordJobEnd('report', 'succeeded', 1500);
    metrics.recordJobEnd('report', 'canceled', Number.NaN);
    expect(await samples(metrics, 'connector_jobs_completed_total')).to.deep.equal({ 'report,succeeded': 1, 'report,canceled': 1 });
    expect(await samples(metrics, 'connector_jobs_canceled_total')).to.deep.equal({ report: 1 });
    expect(await samples(metrics, 'connector_job_duration_seconds')).to.deep.equal({ report: 1 });
  });

  it('recordJobWait: a time that is not a number is skipped', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.recordJobWait('report', Number.NaN);
    metrics.recordJobWait('report', 20);
    expect(await samples(metrics, 'connector_job_wait_seconds')).to.deep.equal({ report: 1 });
  });

  it('settlements and refunds: only positive amounts counted; a hold released without a reason counts as failed', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.recordSettlement('report', { captured: 3, released: 0 }, 'canceled');
    metrics.recordRefund('report', 'failed', 0);
    metrics.recordRefund('report', 'canceled', 2);
    metrics.recordHoldSettled('report', 0, 4);
    expect(await samples(metrics, 'connector_credits_captured_total')).to.deep.equal({ report: 3 });
    expect(await samples(metrics, 'connector_credits_refunded_total')).to.deep.equal({ 'report,canceled': 2 });
    expect(await samples(metrics, 'connector_credits_released_total')).to.deep.equal({ 'report,failed': 4 });
  });
});
