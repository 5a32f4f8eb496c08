import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { HARD_DEADLINE_SLACK_MS } from '../../shared/platform/lifecycle/shutdown';
import { chartDir, helm, type K8sObject, lint, type RenderOptions, render, templateRaw } from '../support/helm';
import { byComponent, type Container, containerPort, mainContainer, mustFind, ofKind, validateObject } from '../support/manifests';

const ciFiles = readdirSync(path.join(chartDir, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort()
  .map((f) => `charts/connector/ci/${f}`);

const variants: Array<{ label: string; options: RenderOptions }> = [
  { label: 'the default values', options: {} },
  ...ciFiles.map((file) => ({ label: path.basename(file), options: { valuesFiles: [file] } })),
  { label: 'values-dev.yaml (skaffold dev)', options: { valuesFiles: ['charts/connector/values-dev.yaml'] } },
];

const REQUIRED_LABELS = [
  'app.kubernetes.io/name',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
  'app.kubernetes.io/managed-by',
  'helm.sh/chart',
];

function podSpec(deployment: K8sObject) {
  return deployment.spec.template.spec;
}

/** The ConfigMaps other than the Grafana dashboard's (component `dashboard`). */
function settingsConfigMaps(objects: K8sObject[]): K8sObject[] {
  return ofKind(objects, 'ConfigMap').filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] !== 'dashboard');
}

function configMapOf(objects: K8sObject[]): Record<string, string> {
  const maps = settingsConfigMaps(objects);
  expect(maps, 'exactly one ConfigMap').to.have.length(1);
  return maps[0]!.data as Record<string, string>;
}

function labelsMatch(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

describe('helm chart charts/connector', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  it('ships the ci/*-values.yaml variants (all features, existing secret, ingress TLS, dev redis, each Redis topology)', function () {
    expect(ciFiles.map((f) => path.basename(f))).to.include.members([
      'all-features-values.yaml',
      'existing-secret-values.yaml',
      'ingress-tls-values.yaml',
      'dev-redis-values.yaml',
      'redis-sentinel-values.yaml',
      'redis-cluster-values.yaml',
      'redis-url-tls-values.yaml',
    ]);
  });

  for (const { label, options } of variants) {
    describe(`rendered with ${label}`, function () {
      let objects: K8sObject[];
      before(function () {
        this.timeout(60_000);
        objects = render(options);
      });

      it('passes helm lint --strict', function () {
        this.timeout(60_000);
        const run = lint(options);
        expect(run.status, run.stdout + run.stderr).to.equal(0);
        expect(run.stdout).to.match(/0 chart\(s\) failed/);
      });

      it('renders only objects that pass Kubernetes schema validation (kubernetes-models)', function () {
        expect(objects.length).to.be.greaterThan(3);
        for (const obj of objects) expect(() => validateObject(obj), `${obj.kind}/${obj.metadata.name}`).not.to.throw();
      });

      it('labels every object with app.kubernetes.io/* and every workload object with its component', function () {
        for (const obj of objects) {
          for (const label of REQUIRED_LABELS) {
            expect(obj.metadata.labels, `${obj.kind}/${obj.metadata.name}`).to.have.property(label);
          }
        }
        for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Ingress', 'NetworkPolicy']) {
          for (const obj of ofKind(objects, kind)) {
            expect(obj.metadata.labels['app.kubernetes.io/component'], `${kind}/${obj.metadata.name}`).to.be.oneOf([
              'api',
              'worker',
              'redis',
            ]);
          }
        }
      });

      it('renders an api Deployment, and a worker Deployment unless worker.enabled is false', function () {
        expect(byComponent(objects, 'Deployment', 'api')).to.exist;
        const workerDisabled = label.startsWith('embedded-api-only');
        expect(Boolean(byComponent(objects, 'Deployment', 'worker'))).to.equal(!workerDisabled);
      });

      it('locks down every pod: non-root uid 1000, read-only root, drop ALL, no escalation, RuntimeDefault seccomp, no token', function () {
        for (const deployment of ofKind(objects, 'Deployment')) {
          const spec = podSpec(deployment);
          const component = deployment.metadata.labels['app.kubernetes.io/component'];
          const where = deployment.metadata.name;
          expect(spec.automountServiceAccountToken, where).to.equal(false);
          expect(spec.securityContext.runAsNonRoot, where).to.equal(true);
          expect(spec.securityContext.seccompProfile, where).to.deep.equal({ type: 'RuntimeDefault' });
          for (const container of spec.containers as Array<Record<string, any>>) {
            const sc = container.securityContext;
            expect(sc.runAsNonRoot, where).to.equal(true);
            expect(sc.runAsUser, where).to.equal(component === 'redis' ? 999 : 1000);
            expect(sc.readOnlyRootFilesystem, where).to.equal(true);
            expect(sc.allowPrivilegeEscalation, where).to.equal(false);
            expect(sc.privileged, where).to.equal(false);
            expect(sc.capabilities, where).to.deep.equal({ drop: ['ALL'] });
            expect(sc.seccompProfile, where).to.deep.equal({ type: 'RuntimeDefault' });
            const tmp = (container.volumeMounts ?? []).find((m: { mountPath: string }) => m.mountPath === '/tmp');
            expect(tmp, `${where}: /tmp mount`).to.exist;
            const volume = spec.volumes.find((v: { name: string }) => v.name === tmp.name);
            expect(volume?.emptyDir, `${where}: /tmp is an emptyDir`).to.be.an('object');
            expect(container.resources?.requests, `${where}: resource requests`).to.include.keys('cpu', 'memory');
            expect(container.resources?.limits, `${where}: resource limits`).to.include.keys('memory');
          }
        }
      });

      it('gives api and worker /healthz liveness, /readyz readiness and a port named metrics that they probe or expose', function () {
        for (const component of ['api', 'worker']) {
          const deployment = byComponent(objects, 'Deployment', component);
          if (!deployment) continue;
          const container = mainContainer(deployment) as Container & Record<string, any>;
          const probePort = component === 'api' ? 'http' : 'metrics';
          expect(container.livenessProbe.httpGet, component).to.deep.equal({ path: '/healthz', port: probePort });
          expect(container.readinessProbe.httpGet, component).to.deep.equal({ path: '/readyz', port: probePort });
          expect(container.startupProbe.httpGet, component).to.deep.equal({ path: '/healthz', port: probePort });
          expect(containerPort(container, 'metrics'), component).to.be.a('number');
          const env = Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
          expect(Number(env.METRICS_PORT), `${component}: METRICS_PORT = the metrics containerPort`).to.equal(
            containerPort(container, 'metrics'),
          );
          if (component === 'api') {
            expect(Number(env.PORT), 'api: PORT = the http containerPort').to.equal(containerPort(container, 'http'));
          } else {
            expect(
              container.ports?.map((p) => p.name),
              'worker exposes only metrics',
            ).to.deep.equal(['metrics']);
          }
        }
      });

      it('sets HOST to :: so api and worker listen where the probes, the Services and Prometheus reach them, whatever PUBLIC_URL is', function () {
        expect(configMapOf(objects).HOST).to.equal('::');
      });

      it('loads the ConfigMap then the Secret into api and worker with envFrom, the Secret reference optional', function () {
        const configMap = settingsConfigMaps(objects)[0]!;
        for (const component of ['api', 'worker']) {
          const deployment = byComponent(objects, 'Deployment', component);
          if (!deployment) continue;
          const envFrom = mainContainer(deployment).envFrom!;
          expect(envFrom, component).to.have.length(2);
          expect(envFrom[0]!.configMapRef?.name, component).to.equal(configMap.metadata.name);
          expect(envFrom[1]!.secretRef?.optional, `${component}: optional secretRef (crash-loop, not CreateContainerConfigError)`).to.equal(
            true,
          );
          const chartSecret = ofKind(objects, 'Secret').find((s) => s.metadata.labels['app.kubernetes.io/component'] === undefined);
          if (chartSecret) expect(envFrom[1]!.secretRef?.name).to.equal(chartSecret.metadata.name);
          const names = (mainContainer(deployment).env ?? []).map((e) => e.name);
          for (const required of ['CONNECTOR_SECRET', 'LINK_SECRET', 'PUBLIC_URL', 'DASHBOARD_URL']) {
            expect(names, `${component}: ${required} must come through envFrom only`).not.to.include(required);
          }
        }
      });

      it("sets terminationGracePeriodSeconds past the process's own hard deadline (SHUTDOWN_GRACE_MS, plus SHUTDOWN_DELAY_MS for the API, plus the slack), with 3 s to spare", function () {
        const drainMs = Number(configMapOf(objects).SHUTDOWN_GRACE_MS);
        const delayMs = Number(configMapOf(objects).SHUTDOWN_DELAY_MS);
        expect(drainMs).to.be.greaterThan(0);
        expect(delayMs).to.be.at.least(0);
        for (const component of ['api', 'worker']) {
          const deployment = byComponent(objects, 'Deployment', component);
          if (!deployment) continue;
          // Only the API waits the delay: the worker has no traffic to move off.
          const budgetMs = drainMs + (component === 'api' ? delayMs : 0);
          const grace = podSpec(deployment).terminationGracePeriodSeconds;
          // The process exits by itself at the latest HARD_DEADLINE_SLACK_MS after its budget; Kubernetes
          // must not SIGKILL it before that, and 3 s cover a slow signal delivery and the last log flush.
          expect(grace * 1000 - budgetMs - HARD_DEADLINE_SLACK_MS, `${component}: margin past the hard deadline`).to.be.at.least(3000);
        }
      });

      it('annotates api and worker pods with sha256 checksums of the ConfigMap and the Secret', function () {
        for (const component of ['api', 'worker']) {
          const deployment = byComponent(objects, 'Deployment', component);
          if (!deployment) continue;
          const annotations = deployment.spec.template.metadata.annotations;
          expect(annotations['checksum/config'], component).to.match(/^[0-9a-f]{64}$/);
          expect(annotations['checksum/secret'], component).to.match(/^[0-9a-f]{64}$/);
        }
      });

      it("selects each Deployment's pods with its own labels and routes every Service to named ports that exist", function () {
        const deployments = ofKind(objects, 'Deployment');
        for (const deployment of deployments) {
          expect(
            labelsMatch(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
            deployment.metadata.name,
          ).to.equal(true);
        }
        for (const service of ofKind(objects, 'Service')) {
          const targets = deployments.filter((d) => labelsMatch(service.spec.selector, d.spec.template.metadata.labels));
          expect(targets, `${service.metadata.name} selects exactly one Deployment`).to.have.length(1);
          const ports = (podSpec(targets[0]!).containers as Container[]).flatMap((c) => c.ports ?? []).map((p) => p.name);
          for (const port of service.spec.ports) expect(ports, `${service.metadata.name}:${port.name}`).to.include(port.targetPort);
        }
      });

      it('uses only the ServiceAccount it renders, or an explicitly named one', function () {
        const accounts = ofKind(objects, 'ServiceAccount');
        for (const account of accounts) expect(account.automountServiceAccountToken).to.equal(false);
        for (const deployment of ofKind(objects, 'Deployment')) {
          const name = podSpec(deployment).serviceAccountName;
          const rendered = accounts.some((a) => a.metadata.name === name);
          expect(rendered || label.startsWith('existing-secret'), `${deployment.metadata.name} uses ${name}`).to.equal(true);
        }
      });
    });
  }

  describe('with the default values', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render();
    });

    it('creates a Secret without data and leaves PUBLIC_URL and DASHBOARD_URL out of the ConfigMap, so the pods crash-loop', function () {
      const secrets = ofKind(objects, 'Secret');
      expect(secrets).to.have.length(1);
      expect(secrets[0]!.data ?? {}).to.deep.equal({});
      const config = configMapOf(objects);
      expect(config).not.to.have.any.keys('PUBLIC_URL', 'DASHBOARD_URL', 'CONNECTOR_SECRET', 'LINK_SECRET', 'REDIS_URL');
      expect(config.SHUTDOWN_GRACE_MS).to.equal('10000');
      expect(config.SHUTDOWN_DELAY_MS).to.equal('5000');
      expect(config.TRUST_PROXY).to.equal('0');
    });

    it('sets AUTH_FAILURES_PER_MINUTE to 20 and leaves DAILY_CREDIT_LIMIT out (no cap) unless config.dailyCreditLimit is set', function () {
      const config = configMapOf(objects);
      expect(config.AUTH_FAILURES_PER_MINUTE).to.equal('20');
      expect(config).not.to.have.any.keys('DAILY_CREDIT_LIMIT');
      expect(configMapOf(render({ set: ['config.dailyCreditLimit=50'] })).DAILY_CREDIT_LIMIT).to.equal('50');
    });

    it('bills metered with spend confirmation elicit above 1, leaving TOP_UP_URL and CREDITS_LOW_THRESHOLD out unless billing.* sets them', function () {
      const config = configMapOf(objects);
      expect(config).to.include({ BILLING_MODE: 'metered', SPEND_CONFIRMATION: 'elicit', SPEND_CONFIRMATION_ABOVE: '1' });
      expect(config).not.to.have.any.keys('TOP_UP_URL', 'CREDITS_LOW_THRESHOLD');
      const set = [
        'billing.mode=prepaid',
        'billing.topUpUrl=https://shop.example.com/credits?plan=basic',
        'billing.lowThreshold=0',
        'billing.spendConfirmation=required',
        'billing.spendConfirmationAbove=25',
      ];
      expect(configMapOf(render({ set }))).to.include({
        BILLING_MODE: 'prepaid',
        TOP_UP_URL: 'https://shop.example.com/credits?plan=basic',
        CREDITS_LOW_THRESHOLD: '0',
        SPEND_CONFIRMATION: 'required',
        SPEND_CONFIRMATION_ABOVE: '25',
      });
    });

    it('renders no optional objects (Ingress, HPA, PDB, NetworkPolicy, ServiceMonitor, PrometheusRule, dev Redis)', function () {
      const kinds = objects.map((o) => o.kind);
      for (const kind of [
        'Ingress',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'NetworkPolicy',
        'ServiceMonitor',
        'PrometheusRule',
      ]) {
        expect(kinds).not.to.include(kind);
      }
      expect(byComponent(objects, 'Deployment', 'redis')).to.equal(undefined);
    });

    it('uses the chart appVersion as the image tag of both images, a 20 s grace period for the API (5 + 10 + 5) and 15 s for the worker', function () {
      const chart = YAML.parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8'));
      expect(mainContainer(mustFind(objects, 'Deployment', 'api')).image).to.equal(`ghcr.io/example/connector-api:${chart.appVersion}`);
      expect(mainContainer(mustFind(objects, 'Deployment', 'worker')).image).to.equal(
        `ghcr.io/example/connector-worker:${chart.appVersion}`,
      );
      expect(podSpec(mustFind(objects, 'Deployment', 'api')).terminationGracePeriodSeconds).to.equal(20);
      expect(podSpec(mustFind(objects, 'Deployment', 'worker')).terminationGracePeriodSeconds).to.equal(15);
    });
  });

  describe('with ci/all-features-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: ['charts/connector/ci/all-features-values.yaml'] });
    });

    it('defaults PUBLIC_URL to https://<ingress host> and TRUST_PROXY to 1 behind the ingress', function () {
      const config = configMapOf(objects);
      expect(config.PUBLIC_URL).to.equal('https://connector.example.com');
      expect(config.DASHBOARD_URL).to.equal('https://dashboard.example.com');
      expect(config.TRUST_PROXY).to.equal('1');
      expect(config.NODE_OPTIONS).to.equal('--max-old-space-size=256');
    });

    it('stores CONNECTOR_SECRET, LINK_SECRET and REDIS_URL in the Secret, never in the ConfigMap', function () {
      const secret = ofKind(objects, 'Secret')[0]!;
      const decoded = Object.fromEntries(
        Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
      );
      expect(decoded).to.deep.equal({
        CONNECTOR_SECRET: 'ci-placeholder-connector-secret-0123456789abcdef',
        LINK_SECRET: 'ci-placeholder-link-secret-0123456789abcdef',
        REDIS_URL: 'redis://redis.placeholder.invalid:6379/0',
      });
      const configText = JSON.stringify(configMapOf(objects));
      expect(configText).not.to.include('placeholder');
    });

    it('routes the ingress host with TLS to the api Service http port, never the metrics port', function () {
      const ingress = mustFind(objects, 'Ingress', 'api');
      const apiService = mustFind(objects, 'Service', 'api');
      expect(ingress.spec.ingressClassName).to.equal('nginx');
      expect(ingress.spec.tls).to.deep.equal([{ hosts: ['connector.example.com'], secretName: 'connector-example-com-tls' }]);
      const backend = ingress.spec.rules[0].http.paths[0].backend.service;
      expect(backend).to.deep.equal({ name: apiService.metadata.name, port: { name: 'http' } });
    });

    it('autoscales api and worker with HPAs targeting their Deployments, which then omit replicas', function () {
      for (const component of ['api', 'worker']) {
        const hpa = mustFind(objects, 'HorizontalPodAutoscaler', component);
        const deployment = mustFind(objects, 'Deployment', component);
        expect(hpa.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
        expect(deployment.spec).not.to.have.property('replicas');
      }
      const apiMetrics = mustFind(objects, 'HorizontalPodAutoscaler', 'api').spec.metrics.map((m: any) => m.resource.name);
      expect(apiMetrics).to.deep.equal(['cpu', 'memory']);
    });

    it('protects api and worker with PodDisruptionBudgets selecting only their own pods', function () {
      expect(mustFind(objects, 'PodDisruptionBudget', 'api').spec.minAvailable).to.equal(1);
      expect(mustFind(objects, 'PodDisruptionBudget', 'worker').spec.maxUnavailable).to.equal(1);
      for (const component of ['api', 'worker']) {
        const pdb = mustFind(objects, 'PodDisruptionBudget', component);
        const selected = ofKind(objects, 'Deployment').filter((d) =>
          labelsMatch(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels),
        );
        expect(selected.map((d) => d.metadata.labels['app.kubernetes.io/component'])).to.deep.equal([component]);
      }
    });

    it('restricts ingress to the api http port from the ingress namespace and metrics from monitoring', function () {
      const api = mustFind(objects, 'NetworkPolicy', 'api');
      expect(api.spec.policyTypes).to.deep.equal(['Ingress']);
      const [httpRule, metricsRule] = api.spec.ingress;
      expect(httpRule.ports).to.deep.equal([{ port: 'http', protocol: 'TCP' }]);
      expect(httpRule.from[0].namespaceSelector.matchLabels).to.deep.equal({ 'kubernetes.io/metadata.name': 'ingress-nginx' });
      expect(metricsRule.ports).to.deep.equal([{ port: 'metrics', protocol: 'TCP' }]);
      expect(metricsRule.from[0].namespaceSelector.matchLabels).to.deep.equal({ 'kubernetes.io/metadata.name': 'monitoring' });
      const worker = mustFind(objects, 'NetworkPolicy', 'worker');
      expect(worker.spec.ingress).to.have.length(1);
      expect(worker.spec.ingress[0].ports).to.deep.equal([{ port: 'metrics', protocol: 'TCP' }]);
    });

    it('scrapes the metrics port of both the api and the worker Service with one ServiceMonitor', function () {
      const monitors = ofKind(objects, 'ServiceMonitor');
      expect(monitors).to.have.length(1);
      const monitor = monitors[0]!;
      expect(monitor.metadata.labels.release).to.equal('kube-prometheus-stack');
      expect(monitor.spec.endpoints).to.deep.equal([
        { port: 'metrics', path: '/metrics', scheme: 'http', interval: '30s', scrapeTimeout: '10s' },
      ]);
      const selected = ofKind(objects, 'Service').filter(
        (s) =>
          labelsMatch(monitor.spec.selector.matchLabels, s.metadata.labels) &&
          monitor.spec.selector.matchExpressions[0].values.includes(s.metadata.labels['app.kubernetes.io/component']),
      );
      expect(selected.map((s) => s.metadata.labels['app.kubernetes.io/component']).sort()).to.deep.equal(['api', 'worker']);
      for (const service of selected) expect(service.spec.ports.map((p: any) => p.name)).to.include('metrics');
    });

    it('alerts only on metric names that the contract fixes', function () {
      const rule = ofKind(objects, 'PrometheusRule')[0]!;
      const exprs = rule.spec.groups.flatMap((g: any) => g.rules.map((r: any) => r.expr as string)).join('\n');
      const used = new Set(exprs.match(/connector_[a-z_]+/g));
      const fixed = new Set([
        'connector_http_requests_total',
        'connector_redis_up',
        'connector_jobs_completed_total',
        'connector_queue_jobs',
        'connector_webhook_deliveries_total',
        'connector_credit_oldest_hold_seconds',
      ]);
      expect([...used].sort()).to.deep.equal([...fixed].sort());
    });

    it('passes the worker its own extraEnv after the shared settings', function () {
      const env = mainContainer(mustFind(objects, 'Deployment', 'worker')).env!;
      expect(env.find((e) => e.name === 'WORKER_CONCURRENCY')?.value).to.equal('8');
      expect(mainContainer(mustFind(objects, 'Deployment', 'api')).env!.map((e) => e.name)).not.to.include('WORKER_CONCURRENCY');
    });
  });

  describe('with ci/existing-secret-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: ['charts/connector/ci/existing-secret-values.yaml'] });
    });

    it('creates no Secret and no ServiceAccount, and loads the existing Secret with an optional envFrom', function () {
      expect(ofKind(objects, 'Secret')).to.have.length(0);
      expect(ofKind(objects, 'ServiceAccount')).to.have.length(0);
      for (const component of ['api', 'worker']) {
        const deployment = mustFind(objects, 'Deployment', component);
        expect(mainContainer(deployment).envFrom![1]).to.deep.equal({ secretRef: { name: 'connector-credentials', optional: true } });
        expect(podSpec(deployment).serviceAccountName).to.equal('connector');
      }
    });

    it('reads REDIS_URL from the named key of the Redis Secret, not optional, so a missing one never falls back to memory', function () {
      for (const component of ['api', 'worker']) {
        const entry = mainContainer(mustFind(objects, 'Deployment', component)).env!.find((e) => e.name === 'REDIS_URL');
        expect(entry?.valueFrom, component).to.deep.equal({ secretKeyRef: { name: 'connector-redis', key: 'url' } });
      }
    });

    it('derives SHUTDOWN_GRACE_MS and terminationGracePeriodSeconds from one drain value (30 s + 10 s, and the 5 s delay for the API)', function () {
      expect(configMapOf(objects).SHUTDOWN_GRACE_MS).to.equal('30000');
      expect(podSpec(mustFind(objects, 'Deployment', 'api')).terminationGracePeriodSeconds).to.equal(45);
      expect(podSpec(mustFind(objects, 'Deployment', 'worker')).terminationGracePeriodSeconds).to.equal(40);
    });

    it('uses the configured image repositories and tags and the replica counts', function () {
      const api = mustFind(objects, 'Deployment', 'api');
      const worker = mustFind(objects, 'Deployment', 'worker');
      expect(mainContainer(api).image).to.equal('registry.example.com/team/connector-api:1.2.3');
      expect(mainContainer(worker).image).to.equal('registry.example.com/team/connector-worker:1.2.3');
      expect(api.spec.replicas).to.equal(3);
      expect(worker.spec.replicas).to.equal(2);
    });
  });

  describe('with ci/ingress-tls-values.yaml', function () {
    it('derives PUBLIC_URL from the ingress host and terminates TLS for that host', function () {
      const objects = render({ valuesFiles: ['charts/connector/ci/ingress-tls-values.yaml'] });
      expect(configMapOf(objects).PUBLIC_URL).to.equal('https://api.connector.example.org');
      const ingress = mustFind(objects, 'Ingress', 'api');
      expect(ingress.spec.tls[0].hosts).to.deep.equal(['api.connector.example.org']);
      expect(ingress.spec.rules[0].host).to.equal('api.connector.example.org');
      expect(ingress.spec.rules[0].http.paths[0]).to.include({ path: '/', pathType: 'Prefix' });
    });
  });

  describe('with ci/dev-redis-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: ['charts/connector/ci/dev-redis-values.yaml'] });
    });

    it('runs the dev Redis with noeviction and no persistence, locked down like the workloads', function () {
      const redis = mustFind(objects, 'Deployment', 'redis');
      const container = mainContainer(redis) as Container & Record<string, any>;
      const args: string[] = container.args;
      expect(args[args.indexOf('--maxmemory-policy') + 1]).to.equal('noeviction');
      expect(args[args.indexOf('--save') + 1]).to.equal('');
      expect(args[args.indexOf('--appendonly') + 1]).to.equal('no');
      expect(container.image).to.match(/^docker\.io\/library\/redis:\d+\.\d+\.\d+/);
      expect(podSpec(redis).automountServiceAccountToken).to.equal(false);
    });

    it('points REDIS_URL of api and worker at the dev Redis Service port', function () {
      const service = mustFind(objects, 'Service', 'redis');
      expect(service.spec.ports[0].port).to.equal(6379);
      for (const component of ['api', 'worker']) {
        const entry = mainContainer(mustFind(objects, 'Deployment', component)).env!.find((e) => e.name === 'REDIS_URL');
        expect(entry?.value, component).to.equal(`redis://${service.metadata.name}:6379`);
      }
    });

    it('lets only the api and worker pods reach the dev Redis', function () {
      const policy = mustFind(objects, 'NetworkPolicy', 'redis');
      const from = policy.spec.ingress[0].from.map((peer: any) => peer.podSelector.matchLabels['app.kubernetes.io/component']);
      expect(from).to.deep.equal(['api', 'worker']);
      expect(policy.spec.ingress[0].ports).to.deep.equal([{ port: 'redis', protocol: 'TCP' }]);
    });
  });

  describe('configuration changes', function () {
    function annotations(options: RenderOptions, component: string): Record<string, string> {
      return mustFind(render(options), 'Deployment', component).spec.template.metadata.annotations;
    }

    it('changes checksum/config, and not checksum/secret, when a ConfigMap setting changes', function () {
      this.timeout(60_000);
      const before = annotations({}, 'api');
      const after = annotations({ set: ['config.logLevel=debug'] }, 'api');
      expect(after['checksum/config']).not.to.equal(before['checksum/config']);
      expect(after['checksum/secret']).to.equal(before['checksum/secret']);
    });

    it('changes checksum/secret when a secret value changes', function () {
      this.timeout(60_000);
      const before = annotations({ set: [`secrets.linkSecret=${'1'.repeat(32)}`] }, 'worker');
      const after = annotations({ set: [`secrets.linkSecret=${'2'.repeat(32)}`] }, 'worker');
      expect(after['checksum/secret']).not.to.equal(before['checksum/secret']);
    });
  });

  describe('values.schema.json', function () {
    const rejected: Array<[string, string[]]> = [
      ['a CONNECTOR_SECRET shorter than 32 characters', ['secrets.connectorSecret=too-short']],
      ['a LINK_SECRET shorter than 32 characters', [`secrets.linkSecret=${'l'.repeat(31)}`]],
      [
        'a LINK_SECRET_PREVIOUS shorter than 32 characters',
        [`secrets.linkSecret=${'l'.repeat(32)}`, `secrets.linkSecretPrevious=${'p'.repeat(31)}`],
      ],
      ['an http PUBLIC_URL on a host that only starts with localhost', ['config.publicUrl=http://localhost.evil.com']],
      ['an http DASHBOARD_URL', ['config.dashboardUrl=http://dashboard.example.com']],
      ['a REDIS_URL that is not redis:// or rediss://', ['redis.url=http://redis:6379']],
      ['an unknown top-level value (a typo)', ['replicaCount=3']],
      ['a drain budget of zero seconds', ['shutdown.drainSeconds=0']],
      ['a negative shutdown delay', ['shutdown.delaySeconds=-1']],
      ['a HOST that is a name, not an address', ['config.host=localhost']],
      ['a BILLING_MODE other than metered or prepaid', ['billing.mode=free']],
      ['an http TOP_UP_URL on a host other than localhost', ['billing.topUpUrl=http://shop.example.com/buy']],
      ['a negative CREDITS_LOW_THRESHOLD', ['billing.lowThreshold=-1']],
    ];
    for (const [what, set] of rejected) {
      it(`makes helm template fail for ${what}`, function () {
        this.timeout(60_000);
        const run = templateRaw({ set });
        expect(run.status).not.to.equal(0);
        expect(run.stderr).to.match(/schema/i);
      });
    }

    it('leaves HOST out of the ConfigMap when config.host is empty, and passes another address as given', function () {
      this.timeout(60_000);
      expect(configMapOf(render({ set: ['config.host='] }))).not.to.have.property('HOST');
      expect(configMapOf(render({ set: ['config.host=0.0.0.0'] })).HOST).to.equal('0.0.0.0');
    });

    it('accepts an http PUBLIC_URL on localhost with a port', function () {
      this.timeout(60_000);
      const objects = render({ set: ['config.publicUrl=http://localhost:8787'] });
      expect(configMapOf(objects).PUBLIC_URL).to.equal('http://localhost:8787');
    });

    it('makes helm template fail when redis.url is given together with secrets.existingSecret (it would be ignored)', function () {
      this.timeout(60_000);
      const run = templateRaw({ set: ['secrets.existingSecret=creds', 'redis.url=redis://redis:6379'] });
      expect(run.status).not.to.equal(0);
      expect(run.stderr).to.include('redis.url is not used with secrets.existingSecret');
    });

    it('makes helm template fail when TLS is on without a certificate Secret name', function () {
      this.timeout(60_000);
      const run = templateRaw({ set: ['ingress.enabled=true', 'ingress.tls.enabled=true'] });
      expect(run.status).not.to.equal(0);
      expect(run.stderr).to.include('ingress.tls.secretName is required');
    });
  });

  describe('values.yaml', function () {
    it('documents every value with a comment on it or on an enclosing key', function () {
      const undocumented = undocumentedValues(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8'));
      expect(undocumented).to.deep.equal([]);
    });

    it('has a comment check that reports an uncommented value (the checker itself can fail)', function () {
      expect(undocumentedValues('# -- documented\na: 1\nb:\n  # -- c\n  c: 2\n  d: 3\n')).to.deep.equal(['b.d']);
    });
  });
});

/**
 * Leaf keys of a values file without a comment line directly above them, unless an enclosing map key has
 * one (then its children, e.g. a resources block, are documented by it).
 */
function undocumentedValues(text: string): string[] {
  const lines = text.split('\n');
  const stack: Array<{ indent: number; key: string; documented: boolean }> = [];
  const out: string[] = [];
  let previous = '';
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === '') {
      previous = '';
      continue;
    }
    if (trimmed.startsWith('#')) {
      previous = trimmed;
      continue;
    }
    const match = /^( *)([A-Za-z0-9_.-]+):(.*)$/.exec(line);
    if (!match) {
      previous = trimmed;
      continue;
    }
    const indent = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const documented = previous.startsWith('#') || stack.some((s) => s.documented);
    const rest = match[3]!.trim();
    const key = [...stack.map((s) => s.key), match[2]!].join('.');
    if (rest === '') stack.push({ indent, key: match[2]!, documented });
    else if (!documented) out.push(key);
    previous = trimmed;
  }
  return out;
}
