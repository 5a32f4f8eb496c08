import { expect } from 'chai';
import { helm, type K8sObject, lint, render, templateRaw } from '../support/helm';
import { mainContainer, mustFind, ofKind, resolveEnv } from '../support/manifests';

const ROTATION_VALUES = 'charts/connector/ci/rotation-values.yaml';
const CONNECTOR = 'ci-placeholder-connector-secret-0123456789abcdef';
const CONNECTOR_OLD = 'ci-placeholder-connector-secret-old-456789abcdef';
const LINK = 'ci-placeholder-link-secret-new-0123456789abcdef';
const LINK_OLD = 'ci-placeholder-link-secret-old-0123456789abcdef';
const HOOK = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const HOOK_OLD = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
const BASE = [
  `secrets.connectorSecret=${CONNECTOR}`,
  `secrets.linkSecret=${LINK}`,
  'config.dashboardUrl=https://dash.example.com',
  'config.publicUrl=https://c.example.com',
];
const HOOKS_URL = 'webhooks.url=https://dash.example.com/hooks';
const PREVIOUS = ['CONNECTOR_SECRET_PREVIOUS', 'LINK_SECRET_PREVIOUS', 'WEBHOOK_SECRET_PREVIOUS'];

/** The environment each workload's container would get. */
function envs(objects: K8sObject[], external: Record<string, Record<string, string>> = {}): Array<Record<string, string>> {
  return ['api', 'worker'].map((component) => resolveEnv(mainContainer(mustFind(objects, 'Deployment', component)), objects, external));
}

function secretChecksum(objects: K8sObject[], component: string): string {
  return mustFind(objects, 'Deployment', component).spec.template.metadata.annotations['checksum/secret'];
}

describe('helm chart: previous secrets for a rotation (*_PREVIOUS)', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  it('renders no *_PREVIOUS variable with the default values, nor with webhooks configured', function () {
    this.timeout(60_000);
    for (const set of [[], [...BASE, HOOKS_URL, `webhooks.secret=${HOOK}`]]) {
      const run = templateRaw({ set });
      expect(run.status, run.stderr).to.equal(0);
      for (const name of PREVIOUS) expect(run.stdout).to.not.include(name);
    }
  });

  describe('with ci/rotation-values.yaml (secrets from values)', function () {
    let objects: K8sObject[];
    before(function () {
      this.timeout(60_000);
      objects = render({ valuesFiles: [ROTATION_VALUES] });
    });

    it('passes helm lint --strict', function () {
      this.timeout(60_000);
      const run = lint({ valuesFiles: [ROTATION_VALUES] });
      expect(run.status, run.stdout + run.stderr).to.equal(0);
    });

    it("stores each previous secret in the chart's Secret beside its current value, never in the ConfigMap", function () {
      const [secret] = ofKind(objects, 'Secret');
      expect(Object.keys(secret!.data).sort()).to.deep.equal([
        'CONNECTOR_SECRET',
        'CONNECTOR_SECRET_PREVIOUS',
        'LINK_SECRET',
        'LINK_SECRET_PREVIOUS',
        'REDIS_URL',
        'WEBHOOK_SECRET',
        'WEBHOOK_SECRET_PREVIOUS',
      ]);
      for (const configMap of ofKind(objects, 'ConfigMap')) expect(JSON.stringify(configMap.data)).to.not.include('_PREVIOUS');
    });

    it('gives the API and the worker the current and the previous value of all three secrets', function () {
      for (const env of envs(objects)) {
        expect(env).to.include({
          CONNECTOR_SECRET: 'ci-placeholder-connector-secret-new-0123456789abcdef',
          CONNECTOR_SECRET_PREVIOUS: 'ci-placeholder-connector-secret-old-0123456789abcdef',
          LINK_SECRET: LINK,
          LINK_SECRET_PREVIOUS: LINK_OLD,
          WEBHOOK_SECRET: 'whsec_Y2ktcGxhY2Vob2xkZXItd2ViaG9vay1zZWNyZXQtbmV3',
          WEBHOOK_SECRET_PREVIOUS: 'whsec_Y2ktcGxhY2Vob2xkZXItd2ViaG9vay1zZWNyZXQtb2xk',
        });
      }
    });
  });

  it('rolls both workloads when a previous secret is added or removed (checksum/secret differs with and without it)', function () {
    this.timeout(60_000);
    const before = render({ set: BASE });
    const during = render({ set: [...BASE, `secrets.connectorSecretPrevious=${CONNECTOR_OLD}`] });
    for (const component of ['api', 'worker']) expect(secretChecksum(during, component)).to.not.equal(secretChecksum(before, component));
  });

  it('loads the previous keys of secrets.existingSecret through the optional envFrom, and starts without them', function () {
    this.timeout(60_000);
    const objects = render({ set: ['secrets.existingSecret=creds'] });
    const current = { CONNECTOR_SECRET: CONNECTOR, LINK_SECRET: LINK };
    const during = { ...current, CONNECTOR_SECRET_PREVIOUS: CONNECTOR_OLD, LINK_SECRET_PREVIOUS: LINK_OLD };
    for (const env of envs(objects, { creds: during })) {
      expect(env).to.include({ CONNECTOR_SECRET_PREVIOUS: CONNECTOR_OLD, LINK_SECRET_PREVIOUS: LINK_OLD });
    }
    for (const env of envs(objects, { creds: current })) expect(Object.keys(env).filter((k) => k.endsWith('_PREVIOUS'))).to.deep.equal([]);
  });

  it('reads WEBHOOK_SECRET_PREVIOUS from previousKey of webhooks.existingSecret, optional, so deleting the key ends the overlap', function () {
    this.timeout(60_000);
    const objects = render({
      set: [...BASE, HOOKS_URL, 'webhooks.existingSecret.name=hooks', 'webhooks.existingSecret.previousKey=old-signing'],
    });
    for (const component of ['api', 'worker']) {
      const entry = mainContainer(mustFind(objects, 'Deployment', component)).env!.find((e) => e.name === 'WEBHOOK_SECRET_PREVIOUS');
      expect(entry?.valueFrom?.secretKeyRef, component).to.deep.equal({ name: 'hooks', key: 'old-signing', optional: true });
    }
    for (const env of envs(objects, { hooks: { WEBHOOK_SECRET: HOOK, 'old-signing': HOOK_OLD } }))
      expect(env).to.include({ WEBHOOK_SECRET: HOOK, WEBHOOK_SECRET_PREVIOUS: HOOK_OLD });
    for (const env of envs(objects, { hooks: { WEBHOOK_SECRET: HOOK } })) expect(env).to.not.have.property('WEBHOOK_SECRET_PREVIOUS');
  });

  it('renders no WEBHOOK_SECRET_PREVIOUS reference where no webhook URL is configured', function () {
    this.timeout(60_000);
    const objects = render({ set: [...BASE, 'webhooks.existingSecret.name=hooks'] });
    for (const component of ['api', 'worker']) {
      const names = mainContainer(mustFind(objects, 'Deployment', component)).env!.map((e) => e.name);
      expect(names, component).to.include('WEBHOOK_SECRET').and.not.include('WEBHOOK_SECRET_PREVIOUS');
    }
  });

  const schemaRefused: Array<[string, string[]]> = [
    ['a CONNECTOR_SECRET_PREVIOUS shorter than 32 characters', ['secrets.connectorSecretPrevious=too-short']],
    [
      'a WEBHOOK_SECRET_PREVIOUS without the whsec_ prefix',
      [HOOKS_URL, `webhooks.secret=${HOOK}`, `webhooks.secretPrevious=${HOOK_OLD.slice(6)}`],
    ],
    ['an empty webhooks.existingSecret.previousKey', ['webhooks.existingSecret.previousKey=']],
  ];
  for (const [what, set] of schemaRefused) {
    it(`makes helm template fail for ${what}`, function () {
      this.timeout(60_000);
      const run = templateRaw({ set: [...BASE, ...set] });
      expect(run.status).to.not.equal(0);
      expect(run.stderr).to.match(/schema/i);
    });
  }

  const refused: Array<[string, string[], string]> = [
    [
      'a previous CONNECTOR_SECRET equal to the current one',
      [`secrets.connectorSecretPrevious=${CONNECTOR}`],
      'secrets.connectorSecretPrevious equals',
    ],
    ['a previous LINK_SECRET equal to the current one', [`secrets.linkSecretPrevious=${LINK}`], 'secrets.linkSecretPrevious equals'],
    [
      'a previous WEBHOOK_SECRET equal to the current one',
      [HOOKS_URL, `webhooks.secret=${HOOK}`, `webhooks.secretPrevious=${HOOK}`],
      'webhooks.secretPrevious equals',
    ],
    [
      'a previous LINK_SECRET without a current one',
      ['secrets.linkSecret=', `secrets.linkSecretPrevious=${LINK_OLD}`],
      'secrets.linkSecretPrevious needs',
    ],
    [
      'previous secrets in values with secrets.existingSecret (they would be ignored)',
      ['secrets.existingSecret=creds', `secrets.connectorSecretPrevious=${CONNECTOR_OLD}`],
      'not used with secrets.existingSecret',
    ],
    [
      'webhooks.secretPrevious with webhooks.existingSecret.name (it would be ignored)',
      [HOOKS_URL, 'webhooks.existingSecret.name=hooks', `webhooks.secretPrevious=${HOOK_OLD}`],
      'webhooks.secretPrevious is not used with an existing Secret',
    ],
    [
      'webhooks.secretPrevious without webhooks.url',
      [`webhooks.secret=${HOOK}`, `webhooks.secretPrevious=${HOOK_OLD}`],
      'only used with webhooks.url',
    ],
  ];
  for (const [what, set, message] of refused) {
    it(`makes helm template fail, naming the values, for ${what}`, function () {
      this.timeout(60_000);
      const run = templateRaw({ set: [...BASE, ...set] });
      expect(run.status).to.not.equal(0);
      expect(run.stderr).to.include(message);
    });
  }
});
