import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { BACKENDS, type BackendKind } from '../support/backends';
import { type DoctorRun, failures, runDoctorCli } from '../support/doctor-cli';
import { EXTENDED_REGISTRY } from '../support/extra-operations';
import { BASE_ENV, type ConnectorUnderTest, startConnector } from '../support/harness';
import { ROOT } from '../support/spawn-process';
import { freePort } from '../testkit/free-port';
import { type Breakage, type StandIn, startStandIn } from './support/stand-in';

const SECRET_ENV = { CONNECTOR_DOCTOR_LINK_SECRET: BASE_ENV.LINK_SECRET };

/** A memory connector behind a stand-in that gets `breakage` wrong; the connector's PUBLIC_URL is the stand-in. */
async function withStandIn<T>(breakage: Breakage, fn: (standIn: StandIn) => Promise<T>): Promise<T> {
  const standIn = await startStandIn(breakage);
  let connector: ConnectorUnderTest | undefined;
  try {
    connector = await startConnector('memory', { PUBLIC_URL: standIn.url });
    standIn.setUpstream(connector.baseUrl);
    return await fn(standIn);
  } finally {
    await connector?.close();
    await standIn.close();
  }
}

/** A connector listening on a free port that is also its PUBLIC_URL, as the doctor reaches it, serving `operations`. */
async function listening(backend: BackendKind, operations?: readonly Operation[]): Promise<{ connector: ConnectorUnderTest; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const connector = await startConnector(backend, { PORT: String(port), PUBLIC_URL: url }, operations ? { operations } : {});
  return { connector, url };
}

for (const backend of BACKENDS) {
  describe(`connector-doctor against a listening connector [${backend}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    let url: string;
    before(async function () {
      this.timeout(60_000);
      ({ connector, url } = await listening(backend));
    });
    after(async () => connector?.close());

    it('passes every rule and exits 0 without a link secret, the token rules skipped with one warning', async () => {
      const run = await runDoctorCli([url]);
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      expect(run.results.length).to.be.at.least(24);
      expect(run.rule('openapi.auth-required').message).to.include(`all ${publishedOperations().length} operations answer 401`);
      expect(run.rule('mcp.unauthorized').status).to.equal('PASS');
      expect(run.rule('mcp.tools').status).to.equal('WARN');
      expect(run.rule('probe.tls').status, 'plain http on 127.0.0.1 is a warning, not a failure').to.equal('WARN');
    });

    it('with the link secret, passes every rule and exits 0: MCP tools on both revisions, the token revoked, nothing charged or printed', async () => {
      const run = await runDoctorCli([url], SECRET_ENV);
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      const expected = [
        'link.mint',
        'link.me',
        'mcp.unauthorized',
        'mcp.initialize-2025-11-25',
        'mcp.request-2026-07-28',
        'mcp.tools-match',
        'mcp.tool-names',
        'oauth.protected-resource',
        'oauth.authorization-server',
        'oauth.metadata-agree',
        'oauth.pkce-s256',
        'oauth.authorize-requires-pkce',
        'link.revoke',
        'link.refused',
        'credits.reconcile',
      ];
      for (const id of expected) expect(run.rule(id).status, `${id}: ${run.rule(id).message}`).to.equal('PASS');
      const warnings = run.results.filter((result) => result.status === 'WARN');
      expect(
        warnings.map((result) => result.id),
        'an untouched checkout warns of plain http only: every list is sized under 100,000 characters',
      ).to.deep.equal(['probe.tls']);
      expect(run.rule('actions.response-size').status).to.equal('PASS');
      const subject = /doctor-[0-9a-f]{12}@example\.invalid/.exec(run.rule('link.mint').message)![0];
      // The throwaway subject never started a job: a fresh connection for it shows nothing charged.
      const token = await connector.link(subject);
      const me = await connector.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
      expect(run.stdout + run.stderr).not.to.include(BASE_ENV.LINK_SECRET);
      expect(run.stdout + run.stderr, 'no token is printed').not.to.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
    });
  });

  describe(`connector-doctor against a connector serving ${EXTENDED_REGISTRY.name}, an input-priced translation among them [${backend}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    let url: string;
    before(async function () {
      this.timeout(60_000);
      ({ connector, url } = await listening(backend, EXTENDED_REGISTRY.operations));
    });
    after(async () => connector?.close());

    it('is READY (ok, nothing failed) with the link secret: the tools match the operations, descriptions and price once, on both revisions', async () => {
      const run = await runDoctorCli([url], SECRET_ENV);
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      expect(JSON.parse(run.stdout)).to.include({ ok: true });
      for (const id of [
        'mcp.tools-match',
        'llms.descriptions',
        'actions.description-length',
        'mcp.initialize-2025-11-25',
        'mcp.request-2026-07-28',
      ])
        expect(run.rule(id).status, `${id}: ${run.rule(id).message}`).to.equal('PASS');
      expect(run.rule('mcp.tools-match').message).to.include(`the ${publishedOperations(EXTENDED_REGISTRY.operations).length} tools`);
    });
  });

  describe(`connector-doctor against the contract stand-in, the baseline of the broken ones below [${backend}]`, function () {
    this.timeout(60_000);
    let standIn: StandIn;
    let connector: ConnectorUnderTest;
    before(async function () {
      this.timeout(60_000);
      standIn = await startStandIn();
      connector = await startConnector(backend, { PUBLIC_URL: standIn.url });
      standIn.setUpstream(connector.baseUrl);
    });
    after(async () => {
      await connector?.close();
      await standIn?.close();
    });

    it('passes every rule and exits 0, so each failure below comes from its breakage alone', async () => {
      const run = await runDoctorCli([standIn.url], SECRET_ENV);
      expect(failures(run), run.stdout).to.deep.equal([]);
      expect(run.code).to.equal(0);
      for (const id of [
        'mcp.unauthorized',
        'mcp.initialize-2025-11-25',
        'mcp.request-2026-07-28',
        'mcp.tools-match',
        'mcp.tool-names',
        'oauth.protected-resource',
        'oauth.authorization-server',
        'oauth.metadata-agree',
        'oauth.pkce-s256',
        'oauth.authorize-requires-pkce',
      ]) {
        expect(run.rule(id).status, `${id}: ${run.rule(id).message}`).to.equal('PASS');
      }
    });

    it('prints one PASS|WARN|FAIL line per rule and a verdict without --json', async () => {
      const run = await runDoctorCli([standIn.url], {}, { json: false });
      const lines = run.stdout.trimEnd().split('\n');
      const verdict = lines.pop()!;
      expect(lines.pop()).to.equal('');
      expect(lines.length).to.be.at.least(20);
      for (const line of lines) expect(line).to.match(/^(PASS|WARN|FAIL) {2}[a-z0-9.-]+ {2,}\S/);
      expect(verdict).to.match(/^READY: http:\/\/127\.0\.0\.1:\d+: \d+ passed, \d+ warnings, 0 failed$/);
      expect(run.code).to.equal(0);
    });
  });
}

describe('connector-doctor against a connector whose PUBLIC_URL has a path', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  let publicUrl: string;
  before(async function () {
    this.timeout(60_000);
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}/connector`;
    connector = await startConnector('memory', { PORT: String(port), PUBLIC_URL: publicUrl });
  });
  after(async () => connector?.close());

  it('passes every rule and exits 0 at the public URL, the well-known documents at their RFC 9728 / 8414 places', async () => {
    const run = await runDoctorCli([publicUrl], SECRET_ENV);
    expect(failures(run), run.stdout).to.deep.equal([]);
    expect(run.code).to.equal(0);
    expect(run.rule('oauth.protected-resource').status).to.equal('PASS');
  });

  it('passes from another address for the same connector with --public-url (the in-cluster mode)', async () => {
    const other = publicUrl.replace('127.0.0.1', 'localhost');
    const run = await runDoctorCli([other, '--public-url', publicUrl], SECRET_ENV);
    expect(failures(run), run.stdout).to.deep.equal([]);
    expect(run.code).to.equal(0);
    expect(run.rule('openapi.servers').message).to.equal(`servers[0].url is ${publicUrl}`);
    expect(run.rule('probe.tls').message).to.include(`the public URL ${publicUrl} is plain http on a local host`);
  });
});

describe('connector-doctor against deliberately broken stand-ins', function () {
  this.timeout(60_000);

  async function expectFailure(
    breakage: Breakage,
    rule: string,
    pattern: RegExp,
    options: { args?: (url: string) => string[] } = {},
  ): Promise<DoctorRun> {
    return withStandIn(breakage, async (standIn) => {
      const run = await runDoctorCli(options.args?.(standIn.url) ?? [standIn.url], SECRET_ENV);
      expect(run.rule(rule).status, run.stdout).to.equal('FAIL');
      expect(run.rule(rule).message).to.match(pattern);
      expect(run.code, 'a failure makes the exit code non-zero').to.equal(1);
      return run;
    });
  }

  it('an operation description over 300 characters fails actions.description-length, naming the operation', async () => {
    await expectFailure(
      {
        document: (d) => {
          d.paths['/v1/me'].get.description = 'x'.repeat(301);
        },
      },
      'actions.description-length',
      /GET \/v1\/me: description is 301 characters \(max 300\)/,
    );
  });

  it('a servers URL other than the public URL fails openapi.servers', async () => {
    await expectFailure(
      {
        document: (d) => {
          d.servers = [{ url: 'https://elsewhere.example.com' }];
        },
      },
      'openapi.servers',
      /https:\/\/elsewhere\.example\.com; expected http:\/\/127\.0\.0\.1:\d+/,
    );
  });

  it('an MCP endpoint missing a tool fails mcp.tools-match, naming the tool', async () => {
    await expectFailure({ omitTool: 'get_job' }, 'mcp.tools-match', /no tool get_job for operation getJob/);
  });

  it('authorization-server metadata with a mismatched issuer fails oauth.metadata-agree', async () => {
    await expectFailure(
      { issuer: 'https://other-issuer.example.com' },
      'oauth.metadata-agree',
      /issuer is https:\/\/other-issuer\.example\.com/,
    );
  });

  it('an authorize endpoint that goes ahead without PKCE fails oauth.authorize-requires-pkce', async () => {
    await expectFailure(
      { authorizeWithoutPkce: true },
      'oauth.authorize-requires-pkce',
      /without code_challenge answered 302 and went ahead/,
    );
  });

  it('a plain http public URL (not localhost) fails openapi.servers-https and probe.tls', async () => {
    const publicUrl = 'http://connector.example.test';
    const run = await expectFailure(
      {
        document: (d) => {
          d.servers = [{ url: publicUrl }];
        },
      },
      'openapi.servers-https',
      /http:\/\/connector\.example\.test is not https/,
      { args: (url) => [url, '--public-url', publicUrl] },
    );
    expect(run.rule('openapi.servers').status, 'the URL itself is the one expected').to.equal('PASS');
    expect(run.rule('probe.tls')).to.include({ status: 'FAIL', message: `the public URL ${publicUrl} is not https` });
  });

  it('an address where nothing listens fails openapi.fetch and probe.healthz and exits 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await runDoctorCli([url]);
    expect(run.rule('probe.healthz').status).to.equal('FAIL');
    expect(run.rule('openapi.fetch').status).to.equal('FAIL');
    expect(run.code).to.equal(1);
  });

  it("npx connector-doctor, run inside the package after a build, resolves the package's own bin", async function () {
    const npx = spawnSync('npx', ['--offline', '--no-install', 'connector-doctor', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(npx.status, npx.stderr).to.equal(0);
    expect(npx.stdout).to.match(/^Usage: connector-doctor <URL>/);
  });

  it('a missing or malformed URL is a usage error: exit 2 and no checks', async () => {
    for (const args of [[], ['not a url'], ['ftp://example.com']]) {
      const run = await runDoctorCli(args);
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.results).to.deep.equal([]);
      expect(run.stderr).to.match(/^connector-doctor: /);
    }
  });
});
