import { expect } from 'chai';
import { helm, type K8sObject, lint, render, templateRaw } from '../support/helm';
import { mainContainer, mustFind, ofKind, resolveEnv } from '../support/manifests';

const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const BASE = [
  'secrets.connectorSecret=ci-placeholder-connector-secret-0123456789abcdef',
  `secrets.linkSecret=${'l'.repeat(32)}`,
  'config.dashboardUrl=https://dash.example.com',
  'config.publicUrl=https://c.example.com',
];

/** The environment each workload's container would get. */
function envs(objects: K8sObject[], external: Record<string, Record<string, string>> = {}): Array<Record<string, string>> {
  return ['api', 'worker'].map((component) => resolveEnv(mainContainer(mustFind(objects, 'Deployment', component)), objects, external));
}

describe('helm chart: webhook values (webhooks.*)', function () {
  before(function () {
    this.timeout(180_000);
    helm();
  });

  it('sets no WEBHOOK_* variable by default', function () {
    this.timeout(60_000);
    for (const env of envs(render({ set: BASE }))) expect(Object.keys(env).filter((k) => k.startsWith('WEBHOOK_'))).to.deep.equal([]);
  });

  it('passes WEBHOOK_URL and WEBHOOK_ALLOW_PRIVATE through the ConfigMap and WEBHOOK_SECRET through the Secret, to both workloads', function () {
    this.timeout(60_000);
    const set = [...BASE, 'webhooks.url=https://dash.example.com/hooks', 'webhooks.allowPrivate=true', `webhooks.secret=${SECRET}`];
    expect(lint({ set }).status).to.equal(0);
    const objects = render({ set });
    const configMap = ofKind(objects, 'ConfigMap').find((c) => c.data?.WEBHOOK_URL)!;
    expect(configMap.data).to.include({ WEBHOOK_URL: 'https://dash.example.com/hooks', WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(JSON.stringify(configMap.data)).to.not.include(SECRET);
    for (const env of envs(objects))
      expect(env).to.include({ WEBHOOK_URL: 'https://dash.example.com/hooks', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_SECRET: SECRET });
  });

  it('reads WEBHOOK_SECRET from the named key of its own Secret, not optional', function () {
    this.timeout(60_000);
    const set = [
      ...BASE,
      'webhooks.url=https://dash.example.com/hooks',
      'webhooks.existingSecret.name=hooks',
      'webhooks.existingSecret.key=signing',
    ];
    const objects = render({ set });
    for (const env of envs(objects, { hooks: { signing: SECRET } })) expect(env.WEBHOOK_SECRET).to.equal(SECRET);
    const ref = mainContainer(mustFind(objects, 'Deployment', 'worker')).env!.find((e) => e.name === 'WEBHOOK_SECRET')!;
    expect(ref.valueFrom?.secretKeyRef).to.deep.equal({ name: 'hooks', key: 'signing' });
    expect(() => envs(objects)).to.throw(/hooks/);
  });

  const refused: Array<[string, string[]]> = [
    ['a plain-http URL that is not localhost', ['webhooks.url=http://dash.example.com/hooks']],
    ['a secret without the whsec_ prefix', [`webhooks.secret=${SECRET.slice(6)}`]],
    ['an unknown webhooks setting', ['webhooks.retries=5']],
  ];
  for (const [what, set] of refused) {
    it(`makes helm template fail for ${what}`, function () {
      this.timeout(60_000);
      const run = templateRaw({ set: [...BASE, ...set] });
      expect(run.status).to.not.equal(0);
      expect(run.stderr).to.match(/schema/i);
    });
  }

  it('makes helm template fail when webhooks.secret is given with secrets.existingSecret (it would be ignored)', function () {
    this.timeout(60_000);
    const run = templateRaw({ set: ['secrets.existingSecret=mine', `webhooks.secret=${SECRET}`] });
    expect(run.status).to.not.equal(0);
    expect(run.stderr).to.include('webhooks.secret is not used with secrets.existingSecret');
  });
});
