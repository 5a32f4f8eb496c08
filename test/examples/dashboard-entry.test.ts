import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { findForbiddenImports } from '../support/import-boundary';
import { npmScriptCommand } from '../support/npm-script';
import { ROOT } from '../support/spawn-process';
import { newWebhookSecret } from '../support/webhook-receiver';
import { childEnv } from '../testkit/child-env';
import { freePort } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';

/** `npm run example:dashboard` as the README runs it, in a folder holding a .env. */
function runEntry(cwd: string, env: Record<string, string>) {
  const { command, args } = npmScriptCommand('example:dashboard');
  const child = spawn(command, args, {
    cwd,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('examples/dashboard: the entry point and what the example may import', function () {
  this.timeout(60_000);
  let tmp: string;
  let connector: ConnectorUnderTest;
  let child: ChildProcess | undefined;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'dashboard-entry-'));
    connector = await startConnector('memory');
  });
  after(async () => {
    child?.kill('SIGTERM');
    await connector?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("reads LINK_SECRET and WEBHOOK_SECRET from ./.env, listens on DASHBOARD_PORT and serves the signed-in person's page", async () => {
    const port = await freePort();
    const person = newSubject();
    writeFileSync(path.join(tmp, '.env'), `LINK_SECRET=${connector.config.linkSecret}\nWEBHOOK_SECRET=${newWebhookSecret()}\n`);
    const run = runEntry(tmp, { CONNECTOR_URL: connector.baseUrl, DASHBOARD_PORT: String(port), DASHBOARD_PERSON: person });
    child = run.child;
    // Started as npm starts it, beside the rest of a loaded suite: a bound for a loaded machine, and it fails at
    // once, with what the process printed, if the process exits instead.
    const started = waitFor(() => run.output().includes(`Example dashboard on http://127.0.0.1:${port}`), {
      what: 'the dashboard to start',
      timeoutMs: 45_000,
    });
    const died = run.exited.then((code) => {
      throw new Error(`the dashboard exited with ${code} before it started:\n${run.output()}`);
    });
    await Promise.race([started, died]);
    expect(run.output()).to.include('webhooks on');
    const home = await fetch(`http://127.0.0.1:${port}/`);
    expect(home.status).to.equal(200);
    expect(await home.text()).to.include(`Signed in as <strong>${person}</strong>`);
    expect(home.headers.get('set-cookie')).to.match(/^dashboard_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('without LINK_SECRET it exits with 78 and says what is missing', async () => {
    const empty = mkdtempSync(path.join(tmp, 'no-env-'));
    const run = runEntry(empty, { CONNECTOR_URL: connector.baseUrl, DASHBOARD_PORT: String(await freePort()) });
    expect(await run.exited).to.equal(78);
    expect(run.output()).to.include('LINK_SECRET is not set');
  });

  it('imports only packages and its own files, so it can be copied out of the repository as it is', () => {
    const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'examples'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const files = listed
      .split('\n')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(ROOT, f));
    expect(files.length, 'example files scanned').to.be.greaterThan(4);
    expect(findForbiddenImports(ROOT, files, [path.join(ROOT, 'examples')])).to.deep.equal([]);
  });
});
