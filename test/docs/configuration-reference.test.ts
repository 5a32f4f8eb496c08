import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PAID_JOBS } from '../../shared/contract/operations/paid-jobs';
import { jobSettingVariables } from '../../shared/domain/jobs/job-settings';
import { configVariables as connectorVariables, type ProcessRole } from '../../shared/platform/config/config';
import { readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

const PAGE = path.join(ROOT, 'docs', 'configuration.md');
/** Every variable a process reads: the connector's own and the paid jobs' own settings. */
function configVariables(role: ProcessRole): Record<string, unknown> {
  return { ...connectorVariables(role), ...jobSettingVariables(PAID_JOBS) };
}

/**
 * The variables the page must list: the connector's own, and every setting of each paid job the page names a
 * setting of (the placeholder's). A job the page names none of is one a user added, whose settings its own
 * guide documents: adding an operation with settings breaks no doc check.
 */
function requiredVariables(role: ProcessRole, documented: readonly string[]): string[] {
  const jobs = PAID_JOBS.filter((job) => Object.keys(job.settings ?? {}).some((name) => documented.includes(name)));
  return [...Object.keys(connectorVariables(role)), ...Object.keys(jobSettingVariables(jobs))];
}

/** The section of the page for variables read by the tools (npm run dev's script, the doctor), not the processes. */
const TOOLS_SECTION = 'Tools';

/** The page's table rows: variable name, its default cell and the `##` section it is in. */
function documentedRows(): Array<{ name: string; defaultCell: string; section: string }> {
  const rows: Array<{ name: string; defaultCell: string; section: string }> = [];
  let section = '';
  for (const line of readMarkdown(PAGE).prose) {
    const heading = /^## (.*)$/.exec(line);
    if (heading) section = heading[1].trim();
    const row = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|([^|]*)\|/.exec(line);
    if (row) rows.push({ name: row[1], defaultCell: row[2].trim(), section });
  }
  return rows;
}

/** Environment variables the tools read: `process.env.X` in scripts/ and doctor/, and the doctor's `CONNECTOR_DOCTOR_*` names. */
function toolVariables(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['scripts', 'doctor']) {
    for (const file of readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith('.ts'))) {
      const source = readFileSync(path.join(ROOT, dir, file), 'utf8');
      // A quoted one is no read (the card bundler defines `'process.env.NODE_ENV'` for the page it builds).
      for (const match of source.matchAll(/(?<!['"])process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(match[1]);
      for (const match of source.matchAll(/'(CONNECTOR_DOCTOR_[A-Z0-9_]+)'/g)) names.add(match[1]);
    }
  }
  return names;
}

/**
 * Whether a default cell states a default: "required" for a variable without one, "unset"/"none" for an
 * undefined or empty one, otherwise the value itself (a number as a whole number, a string or boolean in
 * backticks, an empty list as `[]` or "none").
 */
function documentsDefault(cell: string, spec: { default?: unknown }, required: boolean): boolean {
  if (required) return /^required\b/.test(cell);
  const value = spec.default;
  if (value === undefined) return /^(unset|none)\b/.test(cell);
  if (Array.isArray(value) && value.length === 0) return cell.includes('`[]`') || /^none\b/.test(cell);
  if (typeof value === 'number') return new RegExp(`(^|[^0-9])${value}([^0-9]|$)`).test(cell);
  return cell.includes(`\`${String(value)}\``);
}

describe('docs/configuration.md, checked against the configuration schema', () => {
  const rows = documentedRows();
  const processRows = rows.filter((row) => row.section !== TOOLS_SECTION);

  it('lists every variable of the connector and every setting of a job it names, once, and none it does not read', () => {
    const schema = Object.keys(configVariables('api'));
    expect(schema.length, 'variables in the schema').to.be.greaterThan(40);
    const documented = processRows.map((row) => row.name);
    const required = requiredVariables('api', documented);
    expect(required, 'the placeholder job’s settings').to.include.members(['PLACEHOLDER_JOB_MS', 'PLACEHOLDER_PROGRESS_STEPS']);
    expect(
      documented.filter((name, i) => documented.indexOf(name) !== i),
      'listed twice',
    ).to.deep.equal([]);
    expect(
      required.filter((name) => !documented.includes(name)),
      'undocumented',
    ).to.deep.equal([]);
    expect(
      documented.filter((name) => !schema.includes(name)),
      'documented but not read',
    ).to.deep.equal([]);
  });

  it("states each variable's default as the schema has it, for the API and for the worker", () => {
    const wrong: string[] = [];
    for (const role of ['api', 'worker'] as const) {
      const specs = configVariables(role);
      for (const { name, defaultCell } of processRows) {
        const spec = specs[name] as { default?: unknown } | undefined;
        if (spec && !documentsDefault(defaultCell, spec, !('default' in spec)))
          wrong.push(`${name} (${role}): "${defaultCell}" does not state ${JSON.stringify(spec.default ?? 'required')}`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('lists, under Tools, exactly the variables npm run dev and connector-doctor read besides the schema', () => {
    const schema = new Set(Object.keys(configVariables('api')));
    const tools = [...toolVariables()].filter((name) => !schema.has(name)).sort();
    expect(tools.length).to.be.greaterThan(1);
    expect(
      rows
        .filter((row) => row.section === TOOLS_SECTION)
        .map((row) => row.name)
        .sort(),
    ).to.deep.equal(tools);
  });

  it('the default check accepts the stated value and refuses another', () => {
    expect(documentsDefault('8787', { default: 8787 }, false)).to.equal(true);
    expect(documentsDefault('2592000 (30 days)', { default: 2_592_000 }, false)).to.equal(true);
    expect(documentsDefault('9464 (API), 9465 (worker)', { default: 9465 }, false)).to.equal(true);
    expect(documentsDefault('87870', { default: 8787 }, false)).to.equal(false);
    expect(documentsDefault('`connector:`', { default: 'connector:' }, false)).to.equal(true);
    expect(documentsDefault('`false`', { default: true }, false)).to.equal(false);
    expect(documentsDefault('unset: no cap', { default: undefined }, false)).to.equal(true);
    expect(documentsDefault('0', { default: undefined }, false)).to.equal(false);
    expect(documentsDefault('required', {}, true)).to.equal(true);
    expect(documentsDefault('unset', {}, true)).to.equal(false);
  });
});
