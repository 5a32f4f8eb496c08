import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { pageCardsOf } from '../../scripts/build-cards';
import { builtCardFile } from '../../shared/contract/cards/page-card';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { checkedClient } from '../support/checked-client';
import { startDev, stopDev } from '../support/dev-process';
import { EXTENDED_REGISTRY, TRANSLATION_CARD } from '../support/extra-operations';
import { BASE_ENV } from '../support/harness';
import { linkedToken } from '../support/link-requests';
import { connectMcp } from '../support/mcp-client';
import { ROOT } from '../support/spawn-process';
import { waitFor } from '../testkit/wait-for';

const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

/**
 * The trial's operations added to the registry itself (test/support/inject-extra-operations.ts), as a user
 * edits registry.ts: its translation card then needs no step of its own in the build or the dev server.
 */
describe('an operation’s own card in npm run build and npm run dev, with the trial’s operations added to the registry', function () {
  this.timeout(120_000);
  /** What the registry with the trial's operations has the build bundle: the job card and the translation card. */
  const expected = pageCardsOf(publishedOperations(EXTENDED_REGISTRY.operations));

  it('the build’s card step (scripts/build-cards.ts) writes every page card the registry names, the operation’s own included, as one document each', () => {
    expect(expected.map((card) => card.uri)).to.include(TRANSLATION_CARD.uri);
    const dist = mkdtempSync(path.join(os.tmpdir(), 'own-cards-dist-'));
    try {
      const run = spawnSync(TSX, [path.join(ROOT, 'test', 'support', 'build-cards-with-extras.ts'), dist], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status, run.stderr).to.equal(0);
      const built = JSON.parse(run.stdout) as Array<{ uri: string; file: string }>;
      expect(built).to.deep.equal(expected.map((card) => ({ uri: card.uri, file: path.join(dist, builtCardFile(card)) })));
      for (const { uri, file } of built) expect(readFileSync(file, 'utf8'), uri).to.match(/^<!doctype html>/i);
      expect(readFileSync(path.join(dist, builtCardFile(TRANSLATION_CARD)), 'utf8')).to.include('Translation into');
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('the dev server bundles the operation’s own card from its page and serves it over MCP as a ui:// resource, logging no card error', async () => {
    const dev = await startDev({}, path.join(ROOT, 'test', 'support', 'dev-with-extras.ts'));
    try {
      await waitFor(() => /api listening/.test(dev.output()), { timeoutMs: 60_000, what: 'the api listening line' });
      const { call } = await checkedClient(dev.base);
      const token = await linkedToken(call, { subject: 'own-card-dev', secret: BASE_ENV.LINK_SECRET });
      const client = await connectMcp(`${dev.base}/mcp`, token, '2026-07-28');
      try {
        const listed = (await client.listResources()).resources.map((resource) => resource.uri);
        expect(listed).to.have.members(expected.map((card) => card.uri).concat('ui://connector/injected-card.html'));
        const { contents } = await client.readResource({ uri: TRANSLATION_CARD.uri });
        expect((contents[0] as { text: string }).text)
          .to.include('Translation into')
          .and.not.include('CARD-S');
      } finally {
        await client.close();
      }
      expect(dev.output()).to.not.include('could not be bundled');
    } finally {
      await stopDev(dev);
    }
  });
});
