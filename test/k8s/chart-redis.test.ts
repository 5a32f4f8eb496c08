import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadRedisSettings } from '../../shared/platform/config/redis-settings';
import { helm, type K8sObject, type RenderOptions, render, templateRaw } from '../support/helm';
import { type Container, mainContainer, mustFind, ofKind, resolveEnv } from '../support/manifests';

/*
 * The chart's Redis topologies (one node, Sentinel, Cluster), TLS and credentials, as the api and worker
 * pods receive them: env entries, the CA volume, and what values.schema.json refuses.
 */

const SENTINEL = 'charts/connector/ci/redis-sentinel-values.yaml';
const CLUSTER = 'charts/connector/ci/redis-cluster-values.yaml';
const URL_TLS = 'charts/connector/ci/redis-url-tls-values.yaml';
const ALL_FEATURES = 'charts/connector/ci/all-features-values.yaml';

/** The variables that select or reach a Redis; the tuning ones live in the ConfigMap. */
const CONNECTION_VARS = [
  'REDIS_URL',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_NAME',
  'REDIS_CLUSTER_NODES',
  'REDIS_USERNAME',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_TLS',
  'REDIS_TLS_CA_FILE',
];
const CREDENTIAL_VARS = ['REDIS_URL', 'REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD'];

type EnvEntry = NonNullable<Container['env']>[number];
interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Volume {
  name: string;
  secret?: { secretName: string; defaultMode?: number; items?: Array<{ key: string; path: string }> };
}

function workloads(objects: K8sObject[]): K8sObject[] {
  return ['api', 'worker'].map((component) => mustFind(objects, 'Deployment', component));
}

/** The container's env entries for Redis connection variables, in order. */
function redisEntries(deployment: K8sObject): EnvEntry[] {
  return (mainContainer(deployment).env ?? []).filter((e) => CONNECTION_VARS.includes(e.name));
}

function entry(deployment: K8sObject, name: string): EnvEntry | undefined {
  return redisEntries(deployment).find((e) => e.name === name);
}

function configMap(objects: K8sObject[]): Record<string, string> {
  const maps = ofKind(objects, 'ConfigMap').filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] !== 'dashboard');
  expect(maps).to.have.length(1);
  return maps[0]!.data as Record<string, string>;
}

/** The CA mount, its volume, and the file REDIS_TLS_CA_FILE must name, of one workload. */
function caMount(deployment: K8sObject): { mount?: Mount; volume?: Volume } {
  const container = mainContainer(deployment) as Container & { volumeMounts?: Mount[] };
  const volumes = (deployment.spec.template.spec.volumes ?? []) as Volume[];
  const secretVolumes = volumes.filter((v) => v.secret);
  const mount = (container.volumeMounts ?? []).find((m) => secretVolumes.some((v) => v.name === m.name));
  return { mount, volume: mount && secretVolumes.find((v) => v.name === mount.name) };
}

function expectSchemaRefusal(options: RenderOptions, field: RegExp): void {
  const run = templateRaw(options);
  expect(run.status, run.stdout).not.to.equal(0);
  expect(run.stderr).to.match(/schema/i);
  expect(run.stderr, 'the message points at the offending value').to.match(field);
}

describe('helm chart charts/connector: Redis topologies, TLS and credentials', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  describe('with the default values', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render();
    });

    it('gives api and worker no Redis connection variable and no CA volume, so the API runs in memory', function () {
      for (const deployment of workloads(objects)) {
        expect(redisEntries(deployment), deployment.metadata.name).to.deep.equal([]);
        expect(caMount(deployment).mount, deployment.metadata.name).to.equal(undefined);
      }
    });

    it('puts JOB_QUEUE_SHARDS 1, REDIS_MIN_REPLICAS 0 and REDIS_WAIT_MS 500 in the ConfigMap', function () {
      expect(configMap(objects)).to.include({ JOB_QUEUE_SHARDS: '1', REDIS_MIN_REPLICAS: '0', REDIS_WAIT_MS: '500' });
    });
  });

  describe('one node: ci/all-features-values.yaml (redis.url)', function () {
    it('keeps REDIS_URL out of the pod specs and the ConfigMap: api and worker read it from the chart Secret', function () {
      this.timeout(60_000);
      const objects = render({ valuesFiles: [ALL_FEATURES] });
      expect(configMap(objects)).not.to.have.any.keys(...CONNECTION_VARS);
      for (const deployment of workloads(objects)) {
        expect(redisEntries(deployment), deployment.metadata.name).to.deep.equal([]);
        expect(resolveEnv(mainContainer(deployment), objects).REDIS_URL).to.equal('redis://redis.placeholder.invalid:6379/0');
      }
    });
  });

  describe('one node over TLS with a private CA: ci/redis-url-tls-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: [URL_TLS] });
    });

    it('reads REDIS_URL from its Secret key and sets no REDIS_TLS (rediss:// in the URL turns TLS on)', function () {
      for (const deployment of workloads(objects)) {
        expect(entry(deployment, 'REDIS_URL')?.valueFrom).to.deep.equal({ secretKeyRef: { name: 'connector-redis-url', key: 'url' } });
        expect(entry(deployment, 'REDIS_TLS'), deployment.metadata.name).to.equal(undefined);
      }
    });

    it('mounts only the CA key of its Secret read-only, as the file REDIS_TLS_CA_FILE names', function () {
      for (const deployment of workloads(objects)) {
        const where = deployment.metadata.name;
        const { mount, volume } = caMount(deployment);
        expect(mount, `${where}: CA mount`).to.exist;
        expect(mount!.readOnly, `${where}: read-only`).to.equal(true);
        expect(volume!.secret!.secretName, where).to.equal('redis-private-ca');
        expect(volume!.secret!.items, `${where}: only the bundle's key`).to.have.length(1);
        const item = volume!.secret!.items![0]!;
        expect(item.key, where).to.equal('bundle.pem');
        expect(entry(deployment, 'REDIS_TLS_CA_FILE')?.value, where).to.equal(`${mount!.mountPath}/${item.path}`);
        expect(volume!.secret!.defaultMode! & 0o222, `${where}: no write bit`).to.equal(0);
        expect(volume!.secret!.defaultMode! & 0o004, `${where}: readable by any uid`).to.equal(0o004);
      }
    });

    it('refuses to start a pod whose REDIS_URL Secret key is missing (not optional: no silent fall-back to memory)', function () {
      const api = mainContainer(mustFind(objects, 'Deployment', 'api'));
      expect(() => resolveEnv(api, objects, {})).to.throw(/REDIS_URL.*CreateContainerConfigError/);
      expect(resolveEnv(api, objects, { 'connector-redis-url': { url: 'rediss://u:p@redis:6380' } }).REDIS_URL).to.equal(
        'rediss://u:p@redis:6380',
      );
    });
  });

  describe('Sentinel: ci/redis-sentinel-values.yaml', function () {
    let objects: K8sObject[];
    const credentials = {
      'connector-redis-credentials': { username: 'connector', password: 'data-pass', 'sentinel-password': 'sentinel-pass' },
    };
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: [SENTINEL] });
    });

    it('resolves to the sentinels, the primary name, TLS, the CA file and the credentials from their Secret keys', function () {
      for (const deployment of workloads(objects)) {
        const env = resolveEnv(mainContainer(deployment), objects, credentials);
        const redisEnv = Object.fromEntries(Object.entries(env).filter(([name]) => CONNECTION_VARS.includes(name)));
        expect(redisEnv, deployment.metadata.name).to.deep.equal({
          REDIS_SENTINELS: [0, 1, 2].map((i) => `redis-sentinel-${i}.redis-sentinel.redis.svc.cluster.local:26379`).join(','),
          REDIS_SENTINEL_NAME: 'connector',
          REDIS_TLS: 'true',
          REDIS_TLS_CA_FILE: '/etc/connector/redis-ca/ca.crt',
          REDIS_USERNAME: 'connector',
          REDIS_PASSWORD: 'data-pass',
          REDIS_SENTINEL_PASSWORD: 'sentinel-pass',
        });
      }
    });

    it('sets REDIS_MIN_REPLICAS 1 and REDIS_WAIT_MS 500 in the ConfigMap', function () {
      expect(configMap(objects)).to.include({ REDIS_MIN_REPLICAS: '1', REDIS_WAIT_MS: '500', JOB_QUEUE_SHARDS: '1' });
    });

    it('mounts the CA Secret read-only in both workloads', function () {
      for (const deployment of workloads(objects)) {
        const { mount, volume } = caMount(deployment);
        expect(mount?.readOnly, deployment.metadata.name).to.equal(true);
        expect(volume?.secret?.secretName, deployment.metadata.name).to.equal('redis-internal-ca');
      }
    });

    it('stops the pod when a credential key the values name is missing from the Secret (CreateContainerConfigError)', function () {
      const api = mainContainer(mustFind(objects, 'Deployment', 'api'));
      const { 'sentinel-password': _dropped, ...rest } = credentials['connector-redis-credentials'];
      expect(() => resolveEnv(api, objects, { 'connector-redis-credentials': rest })).to.throw(/REDIS_SENTINEL_PASSWORD/);
    });
  });

  describe('Cluster: ci/redis-cluster-values.yaml', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: [CLUSTER] });
    });

    it('resolves to the seed nodes, TLS and the ACL user, with no sentinel variable and no CA file', function () {
      const credentials = { 'connector-redis-acl': { username: 'connector', password: 'acl-pass' } };
      for (const deployment of workloads(objects)) {
        const env = resolveEnv(mainContainer(deployment), objects, credentials);
        const redisEnv = Object.fromEntries(Object.entries(env).filter(([name]) => CONNECTION_VARS.includes(name)));
        expect(redisEnv, deployment.metadata.name).to.deep.equal({
          REDIS_CLUSTER_NODES: 'clustercfg.connector.abc123.use1.cache.amazonaws.com:6379',
          REDIS_TLS: 'true',
          REDIS_USERNAME: 'connector',
          REDIS_PASSWORD: 'acl-pass',
        });
        expect(caMount(deployment).mount, deployment.metadata.name).to.equal(undefined);
      }
    });

    it('sets JOB_QUEUE_SHARDS 6, REDIS_MIN_REPLICAS 1 and REDIS_WAIT_MS 1000 in the ConfigMap', function () {
      expect(configMap(objects)).to.include({ JOB_QUEUE_SHARDS: '6', REDIS_MIN_REPLICAS: '1', REDIS_WAIT_MS: '1000' });
    });
  });

  describe('in every Redis variant', function () {
    const variants: Array<[string, RenderOptions]> = [
      ['ci/redis-sentinel-values.yaml', { valuesFiles: [SENTINEL] }],
      ['ci/redis-cluster-values.yaml', { valuesFiles: [CLUSTER] }],
      ['ci/redis-url-tls-values.yaml', { valuesFiles: [URL_TLS] }],
      ['ci/existing-secret-values.yaml', { valuesFiles: ['charts/connector/ci/existing-secret-values.yaml'] }],
      ['ci/dev-redis-values.yaml', { valuesFiles: ['charts/connector/ci/dev-redis-values.yaml'] }],
    ];
    for (const [label, options] of variants) {
      it(`${label}: gives api and worker the same Redis env and CA mount, credentials only as secretKeyRefs`, function () {
        this.timeout(60_000);
        const objects = render(options);
        const [api, worker] = workloads(objects);
        expect(redisEntries(api!), 'some Redis variable').not.to.deep.equal([]);
        expect(redisEntries(worker!)).to.deep.equal(redisEntries(api!));
        expect(caMount(worker!)).to.deep.equal(caMount(api!));
        for (const e of redisEntries(api!).filter((x) => CREDENTIAL_VARS.includes(x.name))) {
          // The dev Redis has no password: its in-cluster URL is the one credential variable given as a value.
          if (label.startsWith('ci/dev-redis') && e.name === 'REDIS_URL') {
            expect(e.value).to.match(/^redis:\/\/[^@]+$/);
            continue;
          }
          expect(e.value, `${e.name} is not a plain value`).to.equal(undefined);
          expect(e.valueFrom?.secretKeyRef?.key, `${e.name} from a Secret key`).to.be.a('string');
          expect(e.valueFrom?.secretKeyRef?.optional, `${e.name} not optional`).to.equal(undefined);
        }
        expect(configMap(objects), 'no connection setting in the ConfigMap').not.to.have.any.keys(...CONNECTION_VARS);
      });
    }
  });

  describe('what the connector makes of the rendered environment (its own Redis settings parser)', function () {
    // The CA file exists only in a pod; here a PEM stands in for it at a local path.
    let caDir: string;
    before(function () {
      caDir = mkdtempSync(path.join(tmpdir(), 'chart-redis-ca-'));
      writeFileSync(path.join(caDir, 'ca.crt'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    });
    after(() => rmSync(caDir, { recursive: true, force: true }));

    const external = {
      'connector-redis-credentials': { username: 'connector', password: 'data-pass', 'sentinel-password': 'sentinel-pass' },
      'connector-redis-acl': { username: 'connector', password: 'acl-pass' },
      'connector-redis-url': { url: 'rediss://connector:url-pass@redis.example.com:6380' },
    };
    const cases: Array<[string, string, Record<string, unknown>]> = [
      [SENTINEL, 'sentinel', { tls: true, username: 'connector', password: 'data-pass', redisMinReplicas: 1, jobQueueShards: 1 }],
      [
        CLUSTER,
        'cluster',
        { tls: true, username: 'connector', password: 'acl-pass', redisMinReplicas: 1, jobQueueShards: 6, redisWaitMs: 1000 },
      ],
      [URL_TLS, 'single', { tls: true, redisMinReplicas: 0, jobQueueShards: 1 }],
    ];
    for (const [file, mode, expected] of cases) {
      it(`${path.basename(file)}: the worker's environment parses without a problem into the ${mode} mode`, function () {
        this.timeout(60_000);
        const objects = render({ valuesFiles: [file] });
        const env = resolveEnv(mainContainer(mustFind(objects, 'Deployment', 'worker')), objects, external);
        if (env.REDIS_TLS_CA_FILE) env.REDIS_TLS_CA_FILE = path.join(caDir, path.basename(env.REDIS_TLS_CA_FILE));
        const problems: Array<{ name: string; reason: string }> = [];
        const settings = loadRedisSettings(env, problems);
        expect(problems).to.deep.equal([]);
        const connection = settings.connection!;
        expect(connection.topology.mode).to.equal(mode);
        const flat = { ...connection, ...settings, connection: undefined, topology: undefined };
        for (const [key, value] of Object.entries(expected)) expect(flat, key).to.have.property(key, value);
        expect(Boolean(connection.ca), 'CA read from the mounted file').to.equal(Boolean(env.REDIS_TLS_CA_FILE));
        if (connection.topology.mode === 'sentinel') {
          expect(connection.topology.name).to.equal('connector');
          expect(connection.topology.sentinels).to.have.length(3);
          expect(connection.topology.sentinelPassword).to.equal('sentinel-pass');
        }
      });
    }
  });

  describe('values.schema.json', function () {
    const sentinel = ['redis.sentinel.hosts={s-0:26379,s-1:26379}', 'redis.sentinel.name=connector'];
    const cluster = ['redis.cluster.nodes={c-0:6379}'];
    const refused: Array<[string, string[], RegExp]> = [
      ['a URL together with sentinels', [...sentinel, 'redis.url=redis://r:6379'], /\/redis\/url/],
      ['a URL Secret together with cluster nodes', [...cluster, 'redis.existingSecret.name=r'], /\/redis\/existingSecret\/name/],
      ['sentinels together with cluster nodes', [...sentinel, ...cluster], /\/redis\/cluster\/nodes/],
      ['the dev Redis together with cluster nodes', [...cluster, 'redis.dev.enabled=true'], /\/redis\/dev\/enabled/],
      ['sentinels without a primary name', ['redis.sentinel.hosts={s-0:26379}'], /\/redis\/sentinel\/name/],
      ['a primary name without sentinels', ['redis.sentinel.name=connector'], /\/redis\/sentinel\/name/],
      ['a seed without a port', ['redis.cluster.nodes={c-0}'], /\/redis\/cluster\/nodes\/0/],
      ['a seed on port 0', ['redis.cluster.nodes={c-0:0}'], /\/redis\/cluster\/nodes\/0/],
      ['a seed whose host name has an empty label', ['redis.cluster.nodes={c-0..redis:6379}'], /\/redis\/cluster\/nodes\/0/],
      ['a seed whose host name has an underscore', ['redis.cluster.nodes={c_0:6379}'], /\/redis\/cluster\/nodes\/0/],
      ['a sentinel on port 65536', ['redis.sentinel.hosts={s-0:65536}', 'redis.sentinel.name=m'], /\/redis\/sentinel\/hosts\/0/],
      ['a seed list given as one comma-separated string', ['redis.cluster.nodes[0]=c-0:6379\\,c-1:6379'], /\/redis\/cluster\/nodes\/0/],
      ['the same sentinel twice', ['redis.sentinel.hosts={s-0:26379,s-0:26379}', 'redis.sentinel.name=m'], /\/redis\/sentinel\/hosts/],
      [
        'REDIS_TLS in the one-node mode (rediss:// does that)',
        ['redis.url=redis://r:6379', 'redis.tls.enabled=true'],
        /\/redis\/(sentinel|cluster)/,
      ],
      ['a CA with a plain redis:// URL', ['redis.url=redis://r:6379', 'redis.tls.caSecret.name=ca'], /\/redis\/url/],
      ['a CA with the dev Redis', ['redis.dev.enabled=true', 'redis.tls.caSecret.name=ca'], /\/redis\/dev\/enabled/],
      ['a CA in the cluster mode without TLS', [...cluster, 'redis.tls.caSecret.name=ca'], /\/redis\/tls\/enabled/],
      [
        'a password key in the one-node mode (the URL carries it)',
        ['redis.url=redis://r:6379', 'redis.auth.existingSecret=cr', 'redis.auth.passwordKey=p'],
        /\/redis\/(sentinel|cluster)/,
      ],
      [
        'a sentinel password key in the cluster mode',
        [...cluster, 'redis.auth.existingSecret=cr', 'redis.auth.sentinelPasswordKey=p'],
        /\/redis\/sentinel\/hosts/,
      ],
      ['a password key without the credentials Secret', [...cluster, 'redis.auth.passwordKey=p'], /\/redis\/auth\/passwordKey/],
      ['a credentials Secret without any key', [...cluster, 'redis.auth.existingSecret=cr'], /\/redis\/auth/],
      ['zero queue shards', ['redis.jobQueueShards=0'], /\/redis\/jobQueueShards/],
      ['65 queue shards', ['redis.jobQueueShards=65'], /\/redis\/jobQueueShards/],
      ['17 minimum replicas', ['redis.minReplicas=17'], /\/redis\/minReplicas/],
      ['minimum replicas on the dev Redis (it has none)', ['redis.dev.enabled=true', 'redis.minReplicas=1'], /\/redis\/dev\/enabled/],
      ['a WAIT of 0 ms (Redis would block forever)', ['redis.waitMs=0'], /\/redis\/waitMs/],
      ['a WAIT under the 10 ms the connector accepts', ['redis.waitMs=9'], /\/redis\/waitMs/],
      ['a key prefix with a hash-tag brace', ['config.redisKeyPrefix=app{1}:'], /\/config\/redisKeyPrefix/],
    ];
    for (const [what, set, field] of refused) {
      it(`makes helm template fail for ${what}`, function () {
        this.timeout(60_000);
        expectSchemaRefusal({ set }, field);
      });
    }

    it('accepts sentinels by name, IPv4 and bracketed IPv6 address, and joins them in order', function () {
      this.timeout(60_000);
      const objects = render({
        set: ['redis.sentinel.hosts={s-0.redis:26379,10.0.0.7:26379,[fd00::7]:26380}', 'redis.sentinel.name=mymaster'],
      });
      expect(entry(mustFind(objects, 'Deployment', 'worker'), 'REDIS_SENTINELS')?.value).to.equal(
        's-0.redis:26379,10.0.0.7:26379,[fd00::7]:26380',
      );
    });

    it('accepts a CA for a rediss:// URL given in the values', function () {
      this.timeout(60_000);
      const objects = render({ set: ['redis.url=rediss://r:6380', 'redis.tls.caSecret.name=ca'] });
      expect(caMount(mustFind(objects, 'Deployment', 'api')).volume?.secret?.secretName).to.equal('ca');
    });
  });
});
