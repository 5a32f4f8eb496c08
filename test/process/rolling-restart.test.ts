import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { OpenApiDocument } from '../../shared/contract/description/openapi-document';
import { measurement } from '../support/measurement';
import { OpenApiResponseChecker } from '../support/openapi-check';
import type { SeenResponse } from '../testkit/mixed-traffic';
import { formatRollingReport } from '../testkit/rolling-report';
import { chartShutdown, judgeRollingRestart, type RollingReport, runRollingRestart } from '../testkit/rolling-restart';

/** Node's header object as the Fetch API's, which the OpenAPI checker reads. */
function fetchHeaders(headers: SeenResponse['headers']): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) for (const one of [value ?? []].flat()) result.append(name, one);
  return result;
}

/** An MCP `tools/call` answer: JSON-RPC 2.0, a result that is not an error, structured content for the tool. */
function checkMcp(response: SeenResponse): void {
  expect(response.status, response.text).to.equal(200);
  expect(response.headers['content-type']).to.match(/^application\/json/);
  const body = JSON.parse(response.text);
  expect(body).to.include({ jsonrpc: '2.0', id: 1 });
  expect(body.result.isError ?? false, response.text).to.equal(false);
  expect(body.result.structuredContent, response.text).to.have.property(response.kind === 'mcpGetMe' ? 'subject' : 'status');
}

// One full rotation of the chart's rolling update (testkit/rolling-restart.ts; `npm run bench:rolling` runs more):
// two APIs behind HAProxy health-checking /readyz and two workers on one private Redis, under steady mixed
// traffic, each process replaced in turn with the chart's SHUTDOWN_DELAY_MS.
describe('a rolling restart of two APIs behind HAProxy and two workers, under steady mixed traffic', function () {
  this.timeout(180_000);
  let dir: string;
  let report: RollingReport;
  const mismatches: string[] = [];
  let checked = 0;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'rolling-restart-test-'));
    let checker: OpenApiResponseChecker | undefined;
    report = await runRollingRestart({
      dir,
      rotations: 1,
      clients: 8,
      ratePerSecond: 100,
      beforeTraffic: async (baseUrl) => {
        checker = new OpenApiResponseChecker((await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument);
      },
      onResponse: (response) => {
        try {
          if (response.path === '/mcp') checkMcp(response);
          else checker?.check({ ...response, headers: fetchHeaders(response.headers) });
          checked += 1;
        } catch (error) {
          mismatches.push((error as Error).message);
        }
      },
    });
    measurement(formatRollingReport(report).replace(/^/gm, '      '));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request, with 2xx (or 429) only, each answer as documented, and meets every pass criterion', () => {
    expect(judgeRollingRestart(report)).to.deep.equal([]);
    expect(report.traffic.errors, 'requests without an answer (resets, refusals)').to.deep.equal({});
    expect(Object.keys(report.traffic.statuses).filter((status) => !['200', '202', '429'].includes(status))).to.deep.equal([]);
    expect(mismatches.slice(0, 3), 'answers that do not match the published document').to.deep.equal([]);
    expect(checked).to.be.at.least(report.traffic.sent);
    for (const kind of ['me', 'readJob', 'freshJob', 'retryJob', 'mcpGetMe', 'mcpGetJob'])
      expect(report.traffic.byKind, kind).to.have.property(kind);
  });

  it('replaces each API and each worker once; the old ones exit 0, an API only after the chart’s delay', () => {
    const { delayMs, graceMs } = chartShutdown();
    expect(report.replacements.map((r) => `${r.role} ${r.replica}`)).to.deep.equal(['api 0', 'api 1', 'worker 0', 'worker 1']);
    for (const r of report.replacements) {
      expect(r.exitCode, `${r.role} ${r.replica}`).to.equal(0);
      if (r.role === 'api') expect(r.exitMs).to.be.within(delayMs, delayMs + graceMs);
      else expect(r.exitMs).to.be.below(graceMs);
    }
  });

  it('ends every accepted job succeeded, its work finished exactly once, each subject charged once per job', () => {
    const { jobs } = report;
    expect(jobs.accepted).to.be.at.least(10);
    expect(jobs.succeeded).to.equal(jobs.accepted);
    expect(jobs.completedOnce).to.equal(jobs.accepted);
    expect(jobs.completedTwiceOrMore).to.deep.equal([]);
    expect(jobs.completedButNotAccepted).to.deep.equal([]);
    for (const subject of jobs.chargedPerSubject) expect(subject.jobsCharged, subject.subject).to.equal(subject.accepted);
  });

  it('a worker stopped mid-job finishes it in its drain; one with no grace left hands it back and another worker finishes it', () => {
    const [drained, handing] = report.replacements.filter((r) => r.role === 'worker');
    expect(drained.runningAtSignal).to.not.be.empty;
    expect(drained.finishedInDrain).to.have.members(drained.runningAtSignal!);
    expect(drained.handedBack).to.deep.equal([]);
    expect(handing.runningAtSignal).to.not.be.empty;
    // A job whose last step lands in the instant between the signal and the hand-back finishes on this worker
    // instead: every job running at the signal is either handed back or finished here, and at least one went back.
    expect(handing.handedBack).to.not.be.empty;
    expect([...handing.handedBack!, ...(handing.finishedInDrain ?? [])]).to.have.members(handing.runningAtSignal!);
    expect(handing.finishedElsewhere).to.have.members(handing.handedBack!);
  });
});
