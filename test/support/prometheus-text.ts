/**
 * A small parser for the Prometheus text exposition format (version 0.0.4), enough for tests to read a
 * `/metrics` page and compare two scrapes: samples with their labels, and the declared type of each family.
 */

export type Labels = Record<string, string>;

export interface Sample {
  /** The sample's own name, e.g. `connector_job_wait_seconds_bucket`. */
  name: string;
  labels: Labels;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** `# TYPE` lines: family name → counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
  /** `# HELP` lines: family name → help text. */
  help: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/;

/** Parses one exposition page; throws on a line it cannot read, so a malformed page fails the test. */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const meta = /^#\s+(TYPE|HELP)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)\s?(.*)$/.exec(line);
      if (meta?.[1] === 'TYPE') types.set(meta[2], meta[3]);
      else if (meta?.[1] === 'HELP') help.set(meta[2], meta[3]);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${index + 1} is not a sample: ${line}`);
    samples.push({ name: match[1], labels: match[3] === undefined ? {} : parseLabels(match[3], index + 1), value: parseValue(match[4]) });
  }
  return { samples, types, help };
}

/** Values as Go's ParseFloat reads them: special values in any letter case (prom-client writes `Nan`). */
function parseValue(text: string): number {
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf') return Infinity;
  if (special === '-inf') return -Infinity;
  if (special === 'nan') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a sample value: ${text}`);
  return value;
}

/** Reads `a="x",b="y\"z"` (escapes: `\\`, `\"`, `\n`); a trailing comma is allowed. */
export function parseLabels(text: string, lineNumber = 0): Labels {
  const labels: Labels = {};
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`line ${lineNumber}: ${why} in {${text}}`);
  };
  while (i < text.length) {
    while (text[i] === ' ' || text[i] === ',') i++;
    if (i >= text.length) break;
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i))?.[0] ?? fail('bad label name');
    i += name.length;
    if (text[i] !== '=' || text[i + 1] !== '"') fail(`label ${name} without ="value"`);
    i += 2;
    let value = '';
    for (;;) {
      if (i >= text.length) fail(`unterminated value of ${name}`);
      const ch = text[i++];
      if (ch === '"') break;
      if (ch !== '\\') {
        value += ch;
        continue;
      }
      const escaped = text[i++];
      value += escaped === 'n' ? '\n' : escaped;
    }
    if (name in labels) fail(`duplicate label ${name}`);
    labels[name] = value;
  }
  return labels;
}

/** True when `labels` has every entry of `subset`. */
export function matches(labels: Labels, subset: Labels): boolean {
  return Object.entries(subset).every(([key, value]) => labels[key] === value);
}

/** The sum of the samples called `name` whose labels include `subset` (0 when there is none). */
export function sumOf(page: Exposition, name: string, subset: Labels = {}): number {
  return page.samples.filter((s) => s.name === name && matches(s.labels, subset)).reduce((total, s) => total + s.value, 0);
}

/** The samples called `name`. */
export function samplesOf(page: Exposition, name: string): Sample[] {
  return page.samples.filter((s) => s.name === name);
}

/** A stable key for one series: name plus sorted labels. */
export function seriesKey(sample: Pick<Sample, 'name' | 'labels'>): string {
  const labels = Object.keys(sample.labels)
    .sort()
    .map((key) => `${key}=${JSON.stringify(sample.labels[key])}`);
  return `${sample.name}{${labels.join(',')}}`;
}

/**
 * What changed between two scrapes of `names`: series key → after minus before, leaving out series that
 * did not move. A series new in `after` counts from 0.
 */
export function deltas(before: Exposition, after: Exposition, names: readonly string[]): Map<string, number> {
  const wanted = new Set(names);
  const previous = new Map(before.samples.filter((s) => wanted.has(s.name)).map((s) => [seriesKey(s), s.value]));
  const out = new Map<string, number>();
  for (const sample of after.samples) {
    if (!wanted.has(sample.name)) continue;
    const change = sample.value - (previous.get(seriesKey(sample)) ?? 0);
    if (change !== 0) out.set(seriesKey(sample), change);
  }
  return out;
}

/** Fetches and parses a `/metrics` page. */
export async function scrape(url: string): Promise<Exposition> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return parseExposition(await response.text());
}
