import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { spawnNode } from '../support/spawn-process';
import { freePort } from '../testkit/free-port';

/**
 * A spec file with one test that connects an ioredis client to `port` (where nothing listens) and waits for
 * it to give up, with or without an 'error' listener.
 */
function specSource(port: number, listens: boolean): string {
  return `const Redis = require(${JSON.stringify(require.resolve('ioredis'))});
describe('a client of a port where nothing listens', () => {
  it('gives up after one refused attempt', async () => {
    const client = new Redis({ port: ${port}, host: '127.0.0.1', retryStrategy: () => null, maxRetriesPerRequest: 0 });
    ${listens ? "client.on('error', () => {});" : ''}
    await new Promise((resolve) => client.once('end', resolve));
  });
});
`;
}

describe("the test run's guard against ioredis clients without an 'error' listener (.mocharc.json's root hooks)", function () {
  this.timeout(30_000);
  let tmp: string;
  before(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'unhandled-redis-'))));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  /** Runs mocha, as `npm test` does (the repository's .mocharc.json), on one spec file. */
  async function mocha(listens: boolean) {
    const spec = path.join(tmp, `${listens ? 'listening' : 'deaf'}.spec.js`);
    writeFileSync(spec, specSource(await freePort(), listens));
    const run = spawnNode('node_modules/mocha/bin/mocha.js', {}, [spec]);
    return { code: await run.exited, output: run.stdout() + run.stderr() };
  }

  it('a client without a listener fails the run, naming the test that had begun and the error ioredis printed', async () => {
    const { code, output } = await mocha(false);
    expect(code).to.equal(1);
    expect(output).to.match(
      /1 "\[ioredis\] Unhandled error event" line\(s\) were printed, the first after "a client of a port where nothing listens gives up after one refused attempt" began: \[ioredis\] Unhandled error event: Error: connect ECONNREFUSED 127\.0\.0\.1:\d+\./,
    );
    expect(output).to.include('1 passing').and.include('1 failing');
  });

  it('the same client with a listener passes quietly: nothing but mocha’s own lines', async () => {
    const { code, output } = await mocha(true);
    expect(code).to.equal(0);
    expect(output).to.not.include('Unhandled error event');
    const lines = output
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    // Mocha adds the duration to a test it finds slow (75 ms), as a loaded machine can make this one.
    expect(lines[0]).to.equal('a client of a port where nothing listens');
    expect(lines[1]).to.match(/^✔ gives up after one refused attempt( \(\d+m?s\))?$/);
    expect(lines.slice(2)).to.have.length(1);
    expect(lines[2]).to.match(/^1 passing \(\d+m?s\)$/);
  });
});
