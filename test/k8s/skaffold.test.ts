import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import YAML from 'yaml';
import { helm, lint, render, repoRoot } from '../support/helm';
import { mustFind } from '../support/manifests';
import { dockerfileStages } from './support/dockerfile';

/** Skaffold's published schema, vendored with its licence note (test/k8s/schemas/README.md). */
const schemaPath = path.join(repoRoot, 'test', 'k8s', 'schemas', 'skaffold-v4beta14.json');

function loadSkaffold(): any {
  return YAML.parse(readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8'));
}

/** Skaffold's template variable suffix for an artifact's image name. */
function templateKey(image: string): string {
  return image.replace(/[^A-Za-z0-9]/g, '_');
}

function getPath(values: any, dotted: string): unknown {
  return dotted.split('.').reduce((node, key) => (node === undefined || node === null ? undefined : node[key]), values);
}

describe('skaffold.yaml', function () {
  let validate: ValidateFunction;
  let config: any;

  before(function () {
    this.timeout(180_000);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
    config = loadSkaffold();
    helm();
  });

  it('is valid against the skaffold/v4beta14 JSON schema', function () {
    expect(config.apiVersion).to.equal('skaffold/v4beta14');
    const ok = validate(config);
    expect(ok, JSON.stringify(validate.errors, null, 2)).to.equal(true);
  });

  it('fails the same schema check when a docker field is misspelt (the validator is live)', function () {
    const broken = loadSkaffold();
    broken.build.artifacts[0].docker.targte = broken.build.artifacts[0].docker.target;
    delete broken.build.artifacts[0].docker.target;
    expect(validate(broken)).to.equal(false);
  });

  it('builds two artifacts, api and worker, from the Dockerfile targets of the same names', function () {
    const stages = dockerfileStages(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8')).map((s) => s.name);
    const artifacts = config.build.artifacts as Array<{ image: string; context: string; docker: { dockerfile: string; target: string } }>;
    expect(artifacts.map((a) => a.docker.target)).to.deep.equal(['api', 'worker']);
    for (const artifact of artifacts) {
      expect(stages, artifact.image).to.include(artifact.docker.target);
      expect(existsSync(path.join(repoRoot, artifact.context, artifact.docker.dockerfile)), artifact.image).to.equal(true);
    }
  });

  it('deploys charts/connector with helm, setting each image repository and tag from its artifact', function () {
    const releases = config.deploy.helm.releases as any[];
    expect(releases).to.have.length(1);
    const release = releases[0];
    expect(existsSync(path.join(repoRoot, release.chartPath, 'Chart.yaml'))).to.equal(true);
    const images = Object.fromEntries(
      (config.build.artifacts as Array<{ image: string; docker: { target: string } }>).map((a) => [a.docker.target, a.image]),
    );
    for (const component of ['api', 'worker']) {
      const key = templateKey(images[component]!);
      expect(release.setValueTemplates[`${component}.image.repository`], component).to.equal(`{{.IMAGE_REPO_${key}}}`);
      expect(release.setValueTemplates[`${component}.image.tag`], component).to.equal(`{{.IMAGE_TAG_${key}}}`);
    }
    const values = YAML.parse(readFileSync(path.join(repoRoot, release.chartPath, 'values.yaml'), 'utf8'));
    for (const dotted of [...Object.keys(release.setValueTemplates), ...Object.keys(release.setValues ?? {})]) {
      expect(getPath(values, dotted), `${dotted} exists in values.yaml`).not.to.equal(undefined);
    }
  });

  it('turns the dev Redis on and loads a dev values file of throwaway secrets', function () {
    const release = config.deploy.helm.releases[0];
    expect(release.setValues['redis.dev.enabled']).to.equal(true);
    expect(release.valuesFiles).to.have.length.greaterThan(0);
    for (const file of release.valuesFiles as string[]) {
      const text = readFileSync(path.join(repoRoot, file), 'utf8');
      const values = YAML.parse(text);
      expect(values.secrets.connectorSecret, file).to.match(/^dev-only-/);
      expect(values.secrets.connectorSecret.length, file).to.be.at.least(32);
      expect(values.secrets.linkSecret, file).to.match(/^dev-only-/);
      expect(text, file).to.match(/throwaway/i);
    }
  });

  it('renders and lints the chart with exactly the dev values and setValues skaffold passes', function () {
    this.timeout(60_000);
    const release = config.deploy.helm.releases[0];
    const set = Object.entries(release.setValues as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`);
    set.push('api.image.repository=connector-api', 'api.image.tag=dev', 'worker.image.repository=connector-worker', 'worker.image.tag=dev');
    const options = {
      valuesFiles: release.valuesFiles as string[],
      set,
      releaseName: release.name as string,
      namespace: release.namespace as string,
    };
    const run = lint(options);
    expect(run.status, run.stdout + run.stderr).to.equal(0);
    const objects = render(options);
    expect(mustFind(objects, 'Deployment', 'redis')).to.exist;
    expect(objects.find((o) => o.kind === 'ConfigMap')!.data.PUBLIC_URL).to.equal('http://localhost:8787');
  });

  it("port-forwards the rendered api Service's http port to localhost:8787", function () {
    this.timeout(60_000);
    const release = config.deploy.helm.releases[0];
    const objects = render({
      valuesFiles: release.valuesFiles,
      set: ['redis.dev.enabled=true'],
      releaseName: release.name,
      namespace: release.namespace,
    });
    const service = mustFind(objects, 'Service', 'api');
    const forwards = config.portForward as Array<{
      resourceType: string;
      resourceName: string;
      namespace: string;
      port: number;
      localPort: number;
    }>;
    expect(forwards).to.have.length(1);
    const forward = forwards[0]!;
    expect(forward.resourceType).to.equal('service');
    expect(forward.resourceName).to.equal(service.metadata.name);
    expect(forward.namespace).to.equal(release.namespace);
    expect(forward.localPort).to.equal(8787);
    const http = service.spec.ports.find((p: { name: string }) => p.name === 'http');
    expect(forward.port).to.equal(http.port);
  });
});
