import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { helm, render } from '../support/helm';
import { ofKind } from '../support/manifests';
import { parseMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

const FAKE_CLUSTER = path.join(__dirname, 'support', 'fake-cluster.js');
const SECRET = 'connector-credentials';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

/** LINK_SECRET before the rotation. */
const OLD_LINK = 'old-link-secret-0123456789abcdefghijklmnop';

/** The Secret before a rotation: what `kubectl create secret` in docs/deploying.md makes, plus a webhook secret. */
const INITIAL: Record<string, string> = {
  CONNECTOR_SECRET: b64('old-connector-secret-0123456789abcdefghijklmnopqrstuv'),
  LINK_SECRET: b64(OLD_LINK),
  WEBHOOK_SECRET: b64(`whsec_${Buffer.alloc(32, 1).toString('base64')}`),
  REDIS_URL: b64('rediss://:password@redis.internal:6380/0'),
};

/** What the connector requires of each value (envalid's rules, as the chart's schema states them). */
const VALID: Record<string, (value: string) => boolean> = {
  CONNECTOR_SECRET: (value) => value.length >= 32,
  LINK_SECRET: (value) => value.length >= 32 && value.trim() === value,
  WEBHOOK_SECRET: (value) => /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value.slice(6), 'base64').length >= 24,
};

interface Run {
  readonly status: number | null;
  readonly stderr: string;
  /** The Secret's data after each change, in order, the initial state first. */
  readonly secrets: Array<Record<string, string>>;
  /** The release's values after each change, the initial ones first. */
  readonly values: Array<Record<string, any>>;
  readonly commands: string[];
}

/** The `sh` blocks of a `###` section of docs/security.md, in order, joined into one script. */
function script(heading: string): string {
  const { blocks, prose } = parseMarkdown(readFileSync(path.join(ROOT, 'docs', 'security.md'), 'utf8'));
  const start = prose.findIndex((line) => line.trim() === `### ${heading}`);
  if (start === -1) throw new Error(`docs/security.md has no "### ${heading}"`);
  const end = prose.findIndex((line, index) => index > start && /^#{2,3} /.test(line));
  const inside = blocks.filter((block) => block.info === 'sh' && block.line > start && (end === -1 || block.line < end));
  if (inside.length === 0) throw new Error(`"### ${heading}" has no sh block`);
  return inside.map((block) => block.code).join('\n');
}

/** Runs a script with the fake kubectl and helm first on PATH, against a Secret and release values. */
function runAgainstFakeCluster(code: string, secret: Record<string, string>, values: Record<string, unknown> = {}): Run {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runbook-'));
  try {
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    for (const tool of ['kubectl', 'helm']) {
      writeFileSync(path.join(bin, tool), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_CLUSTER}" ${tool} "$@"\n`);
      chmodSync(path.join(bin, tool), 0o755);
    }
    const state = path.join(dir, 'state');
    mkdirSync(state);
    writeFileSync(path.join(state, 'secrets.json'), JSON.stringify({ [SECRET]: secret }));
    writeFileSync(path.join(state, 'values.json'), JSON.stringify(values));
    writeFileSync(path.join(state, 'history.jsonl'), '');
    writeFileSync(path.join(state, 'commands.log'), '');
    const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', code], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, FAKE_CLUSTER_DIR: state },
    });
    const history = readFileSync(path.join(state, 'history.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { tool: string; state: any });
    return {
      status: run.status,
      stderr: run.stderr,
      secrets: [secret, ...history.filter((h) => h.tool === 'kubectl').map((h) => h.state[SECRET] as Record<string, string>)],
      values: [values, ...history.filter((h) => h.tool === 'helm').map((h) => h.state)],
      commands: readFileSync(path.join(state, 'commands.log'), 'utf8').split('\n').filter(Boolean),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function restartsBoth(commands: readonly string[]): void {
  expect(commands).to.include('kubectl -n connector rollout restart deployment/connector-api deployment/connector-worker');
  expect(commands).to.include('kubectl -n connector rollout status deployment/connector-api');
  expect(commands).to.include('kubectl -n connector rollout status deployment/connector-worker');
}

describe('docs/security.md: the runbooks run as written (a fake kubectl and helm record what they do)', function () {
  this.timeout(120_000);

  for (const name of ['CONNECTOR_SECRET', 'LINK_SECRET', 'WEBHOOK_SECRET']) {
    const previous = `${name}_PREVIOUS`;
    it(`Rotating ${name}: ends with a new valid ${name} and no ${previous}, after an overlap with the old value as ${previous}`, () => {
      const run = runAgainstFakeCluster(script(`Rotating ${name}`), { ...INITIAL });
      expect(run.status, run.stderr).to.equal(0);
      const last = run.secrets.at(-1)!;
      expect(last).to.not.have.property(previous);
      expect(last[name]).to.not.equal(INITIAL[name]);
      expect(VALID[name]!(unb64(last[name]!)), `new ${name}: ${unb64(last[name]!)}`).to.equal(true);
      const overlap = run.secrets.findIndex((s) => s[name] === last[name] && s[previous] === INITIAL[name]);
      expect(overlap, 'a state with the new value current and the old one previous').to.be.greaterThan(0);
      for (const state of run.secrets) {
        const { [name]: _current, [previous]: _previous, ...others } = state;
        const { [name]: _initial, ...initialOthers } = INITIAL;
        expect(others, 'the other keys are left alone').to.deep.equal(initialOthers);
      }
      if (name === 'CONNECTOR_SECRET') {
        // Staged first: every pod must know the new key before any pod signs with it.
        const staged = run.secrets.findIndex((s) => s[name] === INITIAL[name] && s[previous] === last[name]);
        expect(staged, 'the new key staged as the previous one').to.be.greaterThan(0).and.lessThan(overlap);
      }
      restartsBoth(run.commands);
    });
  }

  it('A leaked CONNECTOR_SECRET: replaces it with a new valid one and deletes a previous value at once', () => {
    const during = { ...INITIAL, CONNECTOR_SECRET_PREVIOUS: b64('older-connector-secret-0123456789abcdefghijklmn') };
    const run = runAgainstFakeCluster(script('A leaked CONNECTOR_SECRET'), during);
    expect(run.status, run.stderr).to.equal(0);
    expect(run.secrets).to.have.length(2);
    const after = run.secrets[1]!;
    expect(after).to.not.have.property('CONNECTOR_SECRET_PREVIOUS');
    expect(after.CONNECTOR_SECRET).to.not.equal(INITIAL.CONNECTOR_SECRET);
    expect(VALID.CONNECTOR_SECRET!(unb64(after.CONNECTOR_SECRET!))).to.equal(true);
    restartsBoth(run.commands);
  });

  it('the fake refuses what a cluster refuses: a removal of a missing key, bad base64, another namespace, an unknown command', () => {
    const cases = [
      `kubectl -n connector patch secret ${SECRET} --type json -p '[{"op": "remove", "path": "/data/LINK_SECRET_PREVIOUS"}]'`,
      `kubectl -n connector patch secret ${SECRET} --type merge -p '{"data": {"LINK_SECRET": "not base64!"}}'`,
      `kubectl -n default get secret ${SECRET} -o jsonpath='{.data.LINK_SECRET}'`,
      `kubectl -n connector delete secret ${SECRET}`,
      'helm upgrade connector ./charts/connector --namespace connector --set-string secrets.linkSecret=x',
    ];
    for (const code of cases) expect(runAgainstFakeCluster(code, { ...INITIAL }).status, code).to.not.equal(0);
  });

  describe('The same steps with secrets from values', () => {
    let run: Run;
    const initialValues = {
      secrets: { connectorSecret: 'c'.repeat(40), connectorSecretPrevious: '', linkSecret: OLD_LINK, linkSecretPrevious: '' },
      config: { dashboardUrl: 'https://dashboard.example.com', publicUrl: 'https://connector.example.com' },
    };
    before(() => {
      helm();
      run = runAgainstFakeCluster(script('The same steps with secrets from values'), { ...INITIAL }, initialValues);
      expect(run.status, run.stderr).to.equal(0);
    });

    it('adds the previous LINK_SECRET with a new current one, then removes it, with helm upgrade --reuse-values', () => {
      expect(run.values).to.have.length(3);
      const [, during, after] = run.values as [unknown, any, any];
      expect(during.secrets.linkSecretPrevious).to.equal(OLD_LINK);
      expect(during.secrets.linkSecret).to.not.equal(OLD_LINK);
      expect(VALID.LINK_SECRET!(during.secrets.linkSecret), during.secrets.linkSecret).to.equal(true);
      expect(after.secrets).to.deep.equal({ ...during.secrets, linkSecretPrevious: '' });
    });

    it("renders each of the release's values in turn with the chart: the overlap's Secret holds both values, the last only the new one", function () {
      this.timeout(120_000);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'runbook-values-'));
      try {
        const secrets = run.values.slice(1).map((values, index) => {
          const file = path.join(dir, `step-${index}.yaml`);
          writeFileSync(file, YAML.stringify(values));
          const [secret] = ofKind(render({ valuesFiles: [path.relative(ROOT, file)], releaseName: 'connector' }), 'Secret');
          return Object.fromEntries(Object.entries(secret!.data as Record<string, string>).map(([k, v]) => [k, unb64(v)]));
        });
        expect(secrets[0]).to.include({ LINK_SECRET_PREVIOUS: OLD_LINK });
        expect(secrets[0]!.LINK_SECRET).to.equal((run.values[1] as any).secrets.linkSecret);
        expect(secrets[1]).to.not.have.property('LINK_SECRET_PREVIOUS');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
