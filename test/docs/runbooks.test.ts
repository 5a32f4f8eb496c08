import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';

/** The alert names of the chart's PrometheusRule template. */
function chartAlerts(): string[] {
  const template = readFileSync(path.join(ROOT, 'charts', 'connector', 'templates', 'prometheusrule.yaml'), 'utf8');
  return [...template.matchAll(/^\s*-\s*alert:\s*([A-Za-z0-9_]+)\s*$/gm)].map((match) => match[1]);
}

/** The `###` headings under `## Runbooks` in docs/operating.md. */
function runbooks(): string[] {
  const headings: string[] = [];
  let inRunbooks = false;
  for (const line of readMarkdown(path.join(ROOT, 'docs', 'operating.md')).prose) {
    if (/^## /.test(line)) inRunbooks = line.trim() === '## Runbooks';
    else if (inRunbooks && /^### /.test(line)) headings.push(line.slice(4).trim());
  }
  return headings;
}

describe('docs/operating.md runbooks', () => {
  it('every alert of the chart has a runbook, and every runbook an alert', () => {
    const alerts = chartAlerts();
    expect(alerts.length, 'alerts in prometheusrule.yaml').to.be.greaterThan(3);
    expect([...runbooks()].sort()).to.deep.equal([...alerts].sort());
  });
});
