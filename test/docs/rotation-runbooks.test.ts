import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { OAUTH_PATHS } from '../../shared/domain/oauth/discovery';
import { chartDir, helm, type K8sObject, render } from '../support/helm';
import { mainContainer, mustFind, ofKind } from '../support/manifests';
import { parseMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

/** The release, namespace and Secret the runbooks use (docs/deploying.md's production example). */
const RELEASE = 'connector';
const EXISTING_SECRET = 'connector-credentials';
const ROTATION = '## Rotating a secret without downtime';
const LEAK = '## After a leak';
/** The counter's `secret` label for each rotated variable; the webhook secret has none (the receiver verifies). */
const COUNTER_LABEL: Record<string, string | undefined> = { CONNECTOR_SECRET: 'connector', LINK_SECRET: 'link', WEBHOOK_SECRET: undefined };

interface Section {
  readonly heading: string;
  /** The section's lines, code included, up to the next heading of the same or a higher level. */
  readonly text: string;
  /** The same lines with fenced code blanked. */
  readonly prose: string;
}

/** The `###` sections under a `##` heading of a Markdown file (headings inside code blocks are ignored). */
function subsections(file: string, parent: string): Section[] {
  const raw = readFileSync(file, 'utf8').split('\n');
  const { prose } = parseMarkdown(raw.join('\n'));
  const out: Section[] = [];
  let inParent = false;
  let current: { heading: string; start: number } | undefined;
  const close = (end: number) => {
    if (current)
      out.push({
        heading: current.heading,
        text: raw.slice(current.start, end).join('\n'),
        prose: prose.slice(current.start, end).join('\n'),
      });
    current = undefined;
  };
  prose.forEach((line, index) => {
    if (/^## /.test(line)) {
      close(index);
      inParent = line.trim() === parent;
    } else if (inParent && /^### /.test(line)) {
      close(index);
      current = { heading: line.slice(4).trim(), start: index };
    }
  });
  close(raw.length);
  return out;
}

function section(sections: readonly Section[], heading: string): Section {
  const found = sections.find((s) => s.heading === heading);
  if (!found) throw new Error(`no section "${heading}" among ${sections.map((s) => s.heading).join(', ')}`);
  return found;
}

/** The bold titles of a section's numbered steps, in order. */
function stepTitles(prose: string): string[] {
  return [...prose.matchAll(/^\s*\d+\.\s+\*\*(.+?)\*\*/gm)].map((match) => match[1]!);
}

/** Whether the patterns match titles in this order (other titles may come between). */
function inOrder(titles: readonly string[], patterns: readonly RegExp[]): boolean {
  let next = 0;
  for (const title of titles) if (next < patterns.length && patterns[next]!.test(title)) next += 1;
  return next === patterns.length;
}

/**
 * Chart value paths a text names (`secrets.linkSecretPrevious`, `--set tracing.enabled=true`): paths under the
 * chart's top-level keys, in code spans, flags or prose.
 */
function valuePaths(text: string, values: Record<string, unknown>): string[] {
  const roots = Object.keys(values).join('|');
  const found = text.matchAll(new RegExp(`(?<=^|[\\s\`])((?:${roots})(?:\\.[A-Za-z0-9]+)+)(?==|[\\s\`,)]|$)`, 'gm'));
  return [...new Set([...found].map((match) => match[1]!))];
}

/** The value paths a text names that values.yaml does not have. */
function unknownValues(text: string, values: Record<string, unknown>): string[] {
  return valuePaths(text, values).filter((name) => {
    let node: unknown = values;
    for (const part of name.split('.')) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    return node === undefined;
  });
}

describe('docs/security.md: the rotation and after-a-leak runbooks', function () {
  const securityMd = path.join(ROOT, 'docs', 'security.md');
  const deployingMd = path.join(ROOT, 'docs', 'deploying.md');
  const values = YAML.parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
  const rotations = subsections(securityMd, ROTATION);
  const leaks = subsections(securityMd, LEAK);
  let rotated: string[];
  let deployments: string[];

  before(function () {
    this.timeout(180_000);
    helm();
    // Which secrets have a previous value is the chart's to say: the keys of its Secret mid-rotation.
    const [secret] = ofKind(render({ valuesFiles: ['charts/connector/ci/rotation-values.yaml'] }), 'Secret');
    rotated = Object.keys(secret!.data)
      .filter((key) => key.endsWith('_PREVIOUS'))
      .map((key) => key.replace(/_PREVIOUS$/, ''))
      .sort();
    const objects: K8sObject[] = render({ releaseName: RELEASE, namespace: RELEASE, set: [`secrets.existingSecret=${EXISTING_SECRET}`] });
    deployments = ['api', 'worker'].map((component) => mustFind(objects, 'Deployment', component).metadata.name);
    expect(mainContainer(mustFind(objects, 'Deployment', 'api')).envFrom).to.deep.include({
      secretRef: { name: EXISTING_SECRET, optional: true },
    });
  });

  it('has a rotation runbook and an after-a-leak runbook for each secret the chart gives a previous value', () => {
    expect(rotated).to.deep.equal(['CONNECTOR_SECRET', 'LINK_SECRET', 'WEBHOOK_SECRET']);
    for (const name of rotated) {
      section(rotations, `Rotating ${name}`);
      section(leaks, `A leaked ${name}`);
    }
  });

  it('goes, in each rotation runbook: add the previous value, roll, switch the dashboard or receivers, watch, remove it, roll', () => {
    const steps = [/add the previous value/i, /^roll/i, /switch the/i, /^watch/i, /remove the previous value/i, /^roll/i];
    for (const name of rotated) {
      const titles = stepTitles(section(rotations, `Rotating ${name}`).prose);
      expect(inOrder(titles, steps), `${name}: ${titles.join(' | ')}`).to.equal(true);
    }
    expect(inOrder(['Roll', 'Add the previous value'], steps.slice(0, 2)), 'the order check itself').to.equal(false);
  });

  it("adds and removes each runbook's own *_PREVIOUS key of the Secret, and restarts and waits for the chart's Deployments", () => {
    for (const name of rotated) {
      const { text } = section(rotations, `Rotating ${name}`);
      expect(text, name).to.include(`"${name}_PREVIOUS": "%s"`);
      expect(text, name).to.include(`kubectl -n connector patch secret ${EXISTING_SECRET} --type merge --patch-file /dev/stdin`);
      expect(text, name).to.include(`"op": "remove", "path": "/data/${name}_PREVIOUS"`);
      expect(text, name).to.include(`rollout restart ${deployments.map((d) => `deployment/${d}`).join(' ')}`);
      for (const deployment of deployments) expect(text, name).to.include(`rollout status deployment/${deployment}`);
    }
  });

  it('watches connector_previous_secret_uses_total with the label each secret is counted under', () => {
    for (const name of rotated) {
      const { prose } = section(rotations, `Rotating ${name}`);
      const labels = [...prose.matchAll(/connector_previous_secret_uses_total\{secret="([a-z]+)"\}/g)].map((m) => m[1]);
      const expected = COUNTER_LABEL[name];
      if (expected === undefined) expect(labels, name).to.deep.equal([]);
      else
        expect(labels, name)
          .to.include(expected)
          .and.to.satisfy((all: string[]) => all.every((l) => l === expected));
    }
  });

  it('runs every kubectl command in the namespace, on the Secret and the Deployments the chart uses', () => {
    const text = readFileSync(securityMd, 'utf8');
    const commands = text.match(/kubectl [^\n]*/g) ?? [];
    expect(commands.length).to.be.greaterThan(10);
    for (const command of commands) expect(command).to.match(/^kubectl -n connector /);
    for (const command of commands)
      for (const [, secret] of command.matchAll(/ secrets? (?:generic )?([a-z0-9-]+)/g)) expect(secret, command).to.equal(EXISTING_SECRET);
    for (const [, deployment] of text.matchAll(/deployment\/([a-z0-9-]+)/g)) expect(deployments).to.include(deployment);
  });

  it('names only connector paths that exist (the registry and the OAuth endpoints)', () => {
    const routes = new Set<string>([...OPERATIONS.map((operation) => operation.path), ...Object.values(OAUTH_PATHS)]);
    const text = leaks.map((s) => s.text).join('\n');
    const named = [...text.matchAll(/\/(?:v1|oauth)\/[A-Za-z0-9/{}_-]*[A-Za-z0-9}]/g)].map((m) => m[0]);
    expect(named).to.include.members(['/v1/link/revoke', '/v1/link/connections', '/oauth/revoke']);
    expect(named.filter((p) => !routes.has(p))).to.deep.equal([]);
  });

  it('names only chart values that values.yaml has, here and in docs/deploying.md', () => {
    for (const file of [securityMd, deployingMd]) {
      const text = readFileSync(file, 'utf8');
      expect(valuePaths(text, values).length, path.relative(ROOT, file)).to.be.greaterThan(10);
      expect(unknownValues(text, values), path.relative(ROOT, file)).to.deep.equal([]);
    }
    expect(unknownValues('set `tracing.sampler` and --set tracing.samplr=x, `secrets.linkSecretPrevious`', values)).to.deep.equal([
      'tracing.samplr',
    ]);
  });
});

describe('docs/deploying.md: the tracing section', function () {
  it('names exactly the OTEL_* variables the chart renders with tracing on', function () {
    this.timeout(180_000);
    helm();
    const objects = render({
      valuesFiles: ['charts/connector/ci/tracing-values.yaml'],
      set: ['tracing.tracesEndpoint=https://traces.example.com/v1/traces'],
    });
    const rendered = new Set<string>();
    for (const component of ['api', 'worker']) {
      for (const entry of mainContainer(mustFind(objects, 'Deployment', component)).env ?? [])
        if (entry.name.startsWith('OTEL_')) rendered.add(entry.name);
    }
    // The pod's name is the chart's own plumbing into OTEL_RESOURCE_ATTRIBUTES, not a setting.
    rendered.delete('OTEL_K8S_POD_NAME');
    const documented = new Set([...tracingSection().matchAll(/OTEL_[A-Z_]+/g)].map((m) => m[0]));
    expect([...documented].sort()).to.deep.equal([...rendered].sort());
  });
});

/** The text of `## Tracing` in docs/deploying.md, up to the next `##`. */
function tracingSection(): string {
  const raw = readFileSync(path.join(ROOT, 'docs', 'deploying.md'), 'utf8').split('\n');
  const { prose } = parseMarkdown(raw.join('\n'));
  const start = prose.findIndex((line) => line.trim() === '## Tracing');
  if (start === -1) throw new Error('docs/deploying.md has no "## Tracing" section');
  const end = prose.findIndex((line, index) => index > start && /^## /.test(line));
  return raw.slice(start, end === -1 ? raw.length : end).join('\n');
}
