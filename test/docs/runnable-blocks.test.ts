import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { type FencedBlock, readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';
import { loadWorkedExample } from './support/worked-example';

/** The info string that marks a shell block as runnable (see docs/getting-started.md, "Writing the docs"). */
const RUNNABLE = 'sh runnable';

/**
 * Runs a script with bash, asynchronously: the connector under test lives in this process, so a synchronous
 * spawn would stop it from answering.
 */
function runBash(
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Every runnable block of README.md and docs/*.md, with where it is. */
function runnableBlocks(): Array<{ where: string; block: FencedBlock }> {
  const docs = path.join(ROOT, 'docs');
  const pages = [
    path.join(ROOT, 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => path.join(docs, f)),
  ];
  return pages.flatMap((page) =>
    readMarkdown(page)
      .blocks.filter((block) => block.info === RUNNABLE)
      .map((block) => ({ where: `${path.relative(ROOT, page)}:${block.line}`, block })),
  );
}

describe('runnable shell blocks of the docs', function () {
  this.timeout(60_000);
  const blocks = runnableBlocks();
  let connector: ConnectorUnderTest;
  let example: ReturnType<typeof loadWorkedExample>;

  before(async () => {
    // The connector the docs describe once the worked example of building-operations.md is added.
    example = loadWorkedExample();
    connector = await startConnector(
      'memory',
      { PLACEHOLDER_JOB_MS: '10' },
      { operations: withOperations(OPERATIONS, example.operations) },
    );
  });
  after(async () => {
    await connector?.close();
    example?.cleanup();
  });

  it('there are runnable blocks, in more than one guide', () => {
    expect(blocks.length).to.be.greaterThan(4);
    expect(new Set(blocks.map(({ where }) => where.split(':')[0])).size).to.be.greaterThan(2);
  });

  for (const { where, block } of blocks) {
    it(`${where} runs with exit status 0 (bash -e -o pipefail, in a fresh folder, against a connector)`, async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'docs-block-'));
      try {
        const env = { PATH: process.env.PATH ?? '', HOME: dir, BASE: connector.baseUrl, LINK_SECRET: connector.config.linkSecret };
        const run = await runBash(block.code, dir, env, 45_000);
        expect(run.status, `${where}\n${run.stderr}\n${run.stdout}`).to.equal(0);
        expect(run.stdout.trim(), `${where} printed nothing`).to.not.equal('');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('a failing block fails: the runner sees a non-zero status', async () => {
    const run = await runBash(
      'curl -sf "$BASE/v1/nowhere" | cat; echo unreachable',
      os.tmpdir(),
      { PATH: process.env.PATH ?? '', BASE: connector.baseUrl },
      10_000,
    );
    expect(run.status).to.not.equal(0);
    expect(run.stdout).to.not.contain('unreachable');
  });
});
