import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { chartDir, helm, type K8sObject, render, repoRoot, templateRaw } from '../support/helm';
import { byComponent, ofKind, validateObject } from '../support/manifests';
import {
  AUTH_FAILURE_REASONS,
  CONTRACT_METRICS,
  exportedFamilies,
  exportedSampleNames,
  JOB_OUTCOMES,
  QUEUE_STATES,
  REFUND_REASONS,
  RELEASE_REASONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_OUTCOMES,
} from '../support/metric-contract';
import { labelValuesMetric, type Selector, selectors } from '../support/promql';

const ALL_FEATURES = 'charts/connector/ci/all-features-values.yaml';
const DASHBOARD_FILE = path.join(chartDir, 'dashboards', 'connector.json');

/** Labels Prometheus adds when it scrapes (ServiceMonitor targets), valid on every connector series. */
const TARGET_LABELS = ['namespace', 'pod', 'job', 'instance', 'service', 'container', 'endpoint'];
/** Label values the services can produce, per metric, for the labels whose values are a closed set. */
const CLOSED_VALUES: Record<string, Record<string, readonly string[]>> = {
  connector_queue_jobs: { state: QUEUE_STATES },
  connector_jobs_completed_total: { outcome: JOB_OUTCOMES },
  connector_credits_refunded_total: { reason: REFUND_REASONS },
  connector_credits_released_total: { reason: RELEASE_REASONS },
  connector_auth_failures_total: { reason: AUTH_FAILURE_REASONS },
  connector_webhook_deliveries_total: { type: WEBHOOK_EVENT_TYPES, outcome: WEBHOOK_OUTCOMES },
};

interface Query {
  where: string;
  expr: string;
}

/** Every PromQL expression of a dashboard: panel targets (rows included) and query variables. */
function dashboardQueries(dashboard: any): Query[] {
  const queries: Query[] = [];
  const visit = (panels: any[]) => {
    for (const panel of panels ?? []) {
      for (const target of panel.targets ?? []) queries.push({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr });
      visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  return queries;
}

/**
 * Problems of one query against the exported metrics: an unknown metric, a label the metric does not have,
 * or a value of a closed label (state, outcome, reason, type) that the services never produce. A regex
 * matcher on a closed label must match at least one produced value.
 */
async function problems(query: Query): Promise<string[]> {
  const exported = await exportedSampleNames();
  const families = await exportedFamilies();
  const out: string[] = [];
  let found: Selector[];
  try {
    found = selectors(query.expr);
  } catch (error) {
    return [`${query.where}: ${(error as Error).message}`];
  }
  if (found.length === 0) out.push(`${query.where}: no metric selector in ${query.expr}`);
  for (const { metric, matchers } of found) {
    if (!exported.has(metric)) {
      out.push(`${query.where}: ${metric} is not exported`);
      continue;
    }
    const family = metric.replace(/_(bucket|sum|count)$/, '');
    const contract = CONTRACT_METRICS[metric] ?? (families.get(family) === 'histogram' ? CONTRACT_METRICS[family] : undefined);
    for (const { label, op, value } of matchers) {
      if (TARGET_LABELS.includes(label)) continue;
      const allowed = [...(contract?.labels ?? []), ...(metric.endsWith('_bucket') ? ['le'] : [])];
      if (contract && !allowed.includes(label)) out.push(`${query.where}: ${metric} has no label ${label}`);
      const closed = CLOSED_VALUES[family]?.[label];
      if (closed && op === '=' && !closed.includes(value)) {
        out.push(`${query.where}: ${label}="${value}" is never produced (values: ${closed.join(', ')})`);
      }
      if (closed && op === '=~') {
        const alternatives = value.split('|');
        const unknown = alternatives.filter((alternative) => !closed.includes(alternative));
        if (unknown.length > 0) out.push(`${query.where}: ${label}=~"${value}" names values never produced: ${unknown.join(', ')}`);
      }
    }
  }
  return out;
}

async function allProblems(queries: Query[]): Promise<string[]> {
  return (await Promise.all(queries.map(problems))).flat();
}

function ruleQueries(rule: K8sObject): Query[] {
  return rule.spec.groups.flatMap((group: any) => group.rules.map((r: any) => ({ where: `alert ${r.alert ?? r.record}`, expr: r.expr })));
}

describe('observability in the chart: Grafana dashboard and PrometheusRule', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  describe('the metric checker itself', function () {
    it('reports an unknown metric, a label the metric lacks, a queue state that does not exist and an unreadable matcher', async function () {
      const found = await allProblems([
        { where: 'a', expr: 'sum(rate(connector_http_requests_totl{namespace="x"}[5m]))' },
        { where: 'b', expr: 'sum(rate(connector_jobs_submitted_total{route="/v1/jobs"}[5m]))' },
        { where: 'c', expr: 'max(connector_queue_jobs{state="waiting"})' },
        { where: 'd', expr: 'max(connector_queue_jobs{state=waiting})' },
        {
          where: 'e',
          expr: 'sum(rate(connector_http_requests_total{status=~"5.."}[5m])) / sum(rate(connector_http_requests_total{}[5m]))',
        },
        { where: 'f', expr: 'sum(rate(connector_webhook_deliveries_total{outcome="sent"}[5m]))' },
        { where: 'g', expr: 'sum(rate(connector_webhook_deliveries_total{outcome=~"failed|timeout"}[5m]))' },
        { where: 'h', expr: 'sum(rate(connector_webhook_deliveries_total{type="job.done"}[5m]))' },
        { where: 'i', expr: 'sum(rate(connector_webhook_deliveries_total{outcome=~"failed|abandoned",type="job.failed"}[5m]))' },
      ]);
      expect(found.map((p) => p.split(':')[0])).to.deep.equal(['a', 'b', 'c', 'd', 'f', 'g', 'h']);
    });

    it('accepts every histogram series name (_bucket with le, _sum, _count) and Node default metrics', async function () {
      expect(
        await allProblems([
          {
            where: 'h',
            expr: 'histogram_quantile(0.9, sum by (le) (rate(connector_job_wait_seconds_bucket{operation="createJob",le="1"}[5m])))',
          },
          { where: 's', expr: 'rate(connector_job_duration_seconds_sum{}[5m]) / rate(connector_job_duration_seconds_count{}[5m])' },
          { where: 'n', expr: 'process_resident_memory_bytes{pod="p"}' },
        ]),
      ).to.deep.equal([]);
    });
  });

  describe('the dashboard JSON (charts/connector/dashboards/connector.json)', function () {
    const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8'));
    const queries = dashboardQueries(dashboard);
    const exprs = queries.map((q) => q.expr).join('\n');

    it('parses, has a stable uid and title, and a Prometheus data source and namespace variable', function () {
      expect(dashboard).to.include({ uid: 'connector-overview', title: 'Connector' });
      const variables = dashboard.templating.list.map((v: any) => [v.name, v.type]);
      expect(variables).to.deep.equal([
        ['datasource', 'datasource'],
        ['namespace', 'query'],
      ]);
      expect(dashboard.templating.list[0].query).to.equal('prometheus');
      for (const panel of dashboard.panels.filter((p: any) => p.type !== 'row')) {
        expect(panel.datasource, panel.title).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
      }
      const ids = dashboard.panels.map((p: any) => p.id);
      expect(new Set(ids).size, 'panel ids are unique').to.equal(ids.length);
    });

    it('queries only metrics the services export, with labels and label values they produce', async function () {
      expect(queries.length).to.be.greaterThan(10);
      const variable = labelValuesMetric(dashboard.templating.list[1].query.query);
      expect(variable.label).to.equal('namespace');
      const found = await allProblems([...queries, { where: 'variable namespace', expr: `${variable.metric}{}` }]);
      expect(found).to.deep.equal([]);
    });

    it('filters every query by the namespace variable', function () {
      for (const { where, expr } of queries) {
        for (const selector of selectors(expr)) {
          expect(selector.matchers, `${where}: ${selector.metric}`).to.deep.include({ label: 'namespace', op: '=~', value: '$namespace' });
        }
      }
    });

    it('has panels for request rate, error ratio, latency percentiles, jobs submitted/replayed/failed, queue depth and job wait time', function () {
      const has = (re: RegExp) => expect(exprs, String(re)).to.match(re);
      has(/sum by \(route\) \(rate\(connector_http_requests_total\{/);
      has(/status=~"5\.\."\}\[\$__rate_interval\]\)\) \/ sum\(rate\(connector_http_requests_total/);
      for (const q of ['0.5', '0.95', '0.99'])
        has(
          new RegExp(
            `histogram_quantile\\(${q.replace('.', '\\.')}, sum by \\(le\\) \\(rate\\(connector_http_request_duration_seconds_bucket`,
          ),
        );
      has(/rate\(connector_jobs_submitted_total\{/);
      has(/rate\(connector_jobs_replayed_total\{/);
      has(/rate\(connector_jobs_completed_total\{[^}]*outcome="failed"/);
      has(/max by \(state\) \(connector_queue_jobs\{/);
      has(/histogram_quantile\([0-9.]+, sum by \(le\) \(rate\(connector_job_wait_seconds_bucket/);
    });

    it('has a Webhooks row: deliveries by outcome, the failed attempt ratio and deliveries by event type', function () {
      const row = dashboard.panels.find((p: any) => p.type === 'row' && p.title === 'Webhooks');
      expect(row, 'the Webhooks row').to.not.equal(undefined);
      const below = dashboard.panels.filter((p: any) => p.type !== 'row' && p.gridPos.y === row.gridPos.y + 1);
      const rowExprs = below.flatMap((p: any) => p.targets.map((t: any) => t.expr)).join('\n');
      expect(rowExprs).to.match(/sum by \(outcome\) \(rate\(connector_webhook_deliveries_total\{/);
      expect(rowExprs).to.match(
        /outcome=~"failed\|abandoned"\}\[\$__rate_interval\]\)\) \/ sum\(rate\(connector_webhook_deliveries_total\{/,
      );
      expect(rowExprs).to.match(/sum by \(type\) \(rate\(connector_webhook_deliveries_total\{[^}]*outcome="delivered"/);
    });

    it('lays panels out on the 24-column grid without overlaps', function () {
      const boxes = dashboard.panels.map((p: any) => ({ title: p.title, ...p.gridPos }));
      for (const box of boxes) expect(box.x + box.w, box.title).to.be.at.most(24);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i], boxes[j]];
          const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
          expect(overlap, `${a.title} overlaps ${b.title}`).to.equal(false);
        }
      }
    });
  });

  describe('rendered with ci/all-features-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: [ALL_FEATURES] });
    });

    it('ships the dashboard as a ConfigMap labelled grafana_dashboard: "1", its JSON identical to the file', function () {
      const configMap = byComponent(objects, 'ConfigMap', 'dashboard')!;
      expect(configMap, 'dashboard ConfigMap').to.not.equal(undefined);
      validateObject(configMap);
      expect(configMap.metadata).to.include({ name: 'rel-connector-dashboard', namespace: 'connector' });
      expect(configMap.metadata.labels.grafana_dashboard).to.equal('1');
      expect(configMap.metadata.annotations).to.deep.equal({ grafana_folder: 'Connector' });
      expect(Object.keys(configMap.data)).to.deep.equal(['connector.json']);
      expect(JSON.parse(configMap.data['connector.json'])).to.deep.equal(JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')));
    });

    it('renders a PrometheusRule that validates, with the six alerts, each with a severity and a summary', function () {
      const rules = ofKind(objects, 'PrometheusRule');
      expect(rules).to.have.length(1);
      validateObject(rules[0]!);
      const alerts = rules[0]!.spec.groups.flatMap((g: any) => g.rules);
      expect(alerts.map((a: any) => a.alert).sort()).to.deep.equal([
        'ConnectorCreditHoldsStuck',
        'ConnectorHighErrorRate',
        'ConnectorJobsFailing',
        'ConnectorQueueBacklog',
        'ConnectorRedisDown',
        'ConnectorWebhooksFailing',
      ]);
      for (const alert of alerts) {
        expect(alert.labels.severity, alert.alert).to.be.oneOf(['warning', 'critical']);
        expect(alert.annotations.summary, alert.alert).to.be.a('string').and.not.be.empty;
        expect(alert.for, alert.alert).to.match(/^\d+m$/);
      }
    });

    it('alerts only on exported metrics, with labels and values the services produce (queue states queued/running/succeeded/failed)', async function () {
      const rule = ofKind(objects, 'PrometheusRule')[0]!;
      expect(await allProblems(ruleQueries(rule))).to.deep.equal([]);
    });

    it('scopes every alert query to the release namespace', function () {
      const rule = ofKind(objects, 'PrometheusRule')[0]!;
      for (const { where, expr } of ruleQueries(rule)) {
        for (const selector of selectors(expr)) {
          expect(selector.matchers, `${where}: ${selector.metric}`).to.deep.include({ label: 'namespace', op: '=', value: 'connector' });
        }
      }
    });

    it('alerts on a high 5xx ratio, a growing queued backlog, failing jobs, failing webhook deliveries and connector_redis_up == 0', function () {
      const rule = ofKind(objects, 'PrometheusRule')[0]!;
      const expr = (name: string) =>
        rule.spec.groups[0].rules
          .find((r: any) => r.alert === name)
          .expr.replace(/\s+/g, ' ')
          .trim();
      expect(expr('ConnectorRedisDown')).to.match(/connector_redis_up\{[^}]*\}\) == 0$/);
      expect(expr('ConnectorHighErrorRate')).to.match(
        /status=~"5\.\."[^/]*\/ sum\(rate\(connector_http_requests_total\{[^}]*\}\[5m\]\)\) > 0\.05$/,
      );
      expect(expr('ConnectorJobsFailing')).to.match(
        /outcome="failed"[^/]*\/ sum\(rate\(connector_jobs_completed_total\{[^}]*\}\[15m\]\)\) > 0\.1$/,
      );
      expect(expr('ConnectorQueueBacklog')).to.match(
        /state="queued"\}\) > 100 and deriv\(max\(connector_queue_jobs\{[^}]*state="queued"\}\)\[15m:1m\]\) > 0$/,
      );
      expect(expr('ConnectorWebhooksFailing')).to.match(
        /outcome=~"failed\|abandoned"\}\[15m\]\)\) \/ sum\(rate\(connector_webhook_deliveries_total\{[^}]*\}\[15m\]\)\) > 0\.5$/,
      );
    });
  });

  describe('values', function () {
    it('renders neither the dashboard nor the rule with the default values', function () {
      this.timeout(60_000);
      const objects = render();
      expect(byComponent(objects, 'ConfigMap', 'dashboard')).to.equal(undefined);
      expect(objects.filter((o) => o.metadata.labels?.grafana_dashboard !== undefined)).to.deep.equal([]);
      expect(ofKind(objects, 'PrometheusRule')).to.deep.equal([]);
    });

    it('puts the dashboard in another namespace, with the sidecar label of your choice, when asked', function () {
      this.timeout(60_000);
      const objects = render({
        set: [
          'metrics.grafanaDashboard.enabled=true',
          'metrics.grafanaDashboard.namespace=monitoring',
          'metrics.grafanaDashboard.labels.grafana_dashboard=connector',
        ],
      });
      const configMap = byComponent(objects, 'ConfigMap', 'dashboard')!;
      expect(configMap.metadata.namespace).to.equal('monitoring');
      expect(configMap.metadata.labels.grafana_dashboard).to.equal('connector');
    });

    it('takes the alert thresholds from metrics.prometheusRule.thresholds', function () {
      this.timeout(60_000);
      // A values file: `helm --set` would pass 0.2 as a string, which the schema refuses.
      const dir = mkdtempSync(path.join(tmpdir(), 'connector-thresholds-'));
      const file = path.join(dir, 'values.yaml');
      writeFileSync(
        file,
        'metrics:\n  prometheusRule:\n    enabled: true\n    thresholds: {errorRatio: 0.2, failedJobRatio: 0.5, queuedJobs: 2500, failedWebhookRatio: 0.75}\n',
      );
      let objects: K8sObject[];
      try {
        objects = render({ valuesFiles: [path.relative(repoRoot, file)] });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const exprs = ofKind(objects, 'PrometheusRule')[0]!.spec.groups[0].rules.map((r: any) => r.expr.trim());
      expect(exprs.join('\n')).to.include('> 0.2').and.include('> 0.5').and.include('> 2500').and.include('> 0.75');
    });

    const rejected: Array<[string, string[]]> = [
      ['a dashboard switch that is not a boolean', ['metrics.grafanaDashboard.enabled=maybe']],
      ['an unknown dashboard setting', ['metrics.grafanaDashboard.folder=x']],
      ['a dashboard namespace that is not a DNS label', ['metrics.grafanaDashboard.namespace=Not_A_Namespace']],
      ['an error ratio above 1', ['metrics.prometheusRule.thresholds.errorRatio=5']],
      ['a queued-jobs threshold of 0', ['metrics.prometheusRule.thresholds.queuedJobs=0']],
      ['a failed-webhook ratio above 1', ['metrics.prometheusRule.thresholds.failedWebhookRatio=2']],
    ];
    for (const [what, set] of rejected) {
      it(`makes helm template fail for ${what}`, function () {
        this.timeout(60_000);
        const run = templateRaw({ set });
        expect(run.status).not.to.equal(0);
        expect(run.stderr).to.match(/schema/i);
      });
    }
  });
});
