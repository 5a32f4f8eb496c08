import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { bundleCard, KIT_STYLE, pageSources } from '../../../scripts/bundle-card';
import { networkReferences } from '../../../scripts/network-references';
import { ROOT } from '../../support/spawn-process';

const SHELL = `<!doctype html>
<!-- a note for developers -->
<html lang="en"><head><title>T</title><style>/*CARD-STYLE*/</style></head>
<body><p id="out"></p><script>/*CARD-SCRIPT*/</script></body></html>
`;

describe('the card bundler (scripts/bundle-card.ts)', function () {
  this.timeout(30_000);
  let folder: string;

  /** Writes a page `name` (shell, style, script) into the scratch folder; returns its shell's path. */
  function page(name: string, { style = 'p { color: red; }', script = "document.title = 'card';", shell = SHELL } = {}): string {
    writeFileSync(path.join(folder, `${name}.html`), shell);
    writeFileSync(path.join(folder, `${name}.css`), style);
    writeFileSync(path.join(folder, `${name}-page.ts`), script);
    return path.join(folder, `${name}.html`);
  }

  before(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'bundle-card-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('finds a page’s style sheet and script beside its HTML shell, relative to the repository, and refuses a shell that is no .html', () => {
    expect(pageSources('cards/job-card/job-card.html')).to.deep.equal({
      shell: path.join(ROOT, 'cards', 'job-card', 'job-card.html'),
      style: path.join(ROOT, 'cards', 'job-card', 'job-card.css'),
      entry: path.join(ROOT, 'cards', 'job-card', 'job-card-page.ts'),
    });
    expect(() => pageSources('cards/job-card/job-card-page.ts')).to.throw("a card's page is its HTML shell");
  });

  it('inlines the card kit’s style, then the page’s own, and the bundled script into the shell, and drops its comments', async () => {
    const html = await bundleCard(page('plain', { script: "document.getElementById('out')!.textContent = 'hello card';" }));
    expect(html).to.contain(`<style>${readFileSync(KIT_STYLE, 'utf8').trim()}\np { color: red; }</style>`);
    expect(html).to.match(/<script>[^<]*hello card[^<]*<\/script>/);
    expect(html).to.not.contain('<!--');
    expect(html).to.not.contain('CARD-S');
  });

  it('a page without a style sheet of its own gets the card kit’s alone', async () => {
    const shell = page('unstyled');
    unlinkSync(shell.replace(/\.html$/, '.css'));
    expect(await bundleCard(shell)).to.contain(`<style>${readFileSync(KIT_STYLE, 'utf8').trim()}</style>`);
  });

  it('escapes an address in a script string so that the page names no network reference, the string unchanged', async () => {
    const html = await bundleCard(page('address', { script: "console.info('https://example.com/x', new URL('a:b'));" }));
    expect(html).to.contain(String.raw`\u0068ttps:\/\/example.com/x`);
    expect(html).to.contain(String.raw`\u0055RL(`);
    expect(networkReferences(html)).to.deep.equal([]);
  });

  it('refuses a page whose style sheet loads something from the network, naming the page', async () => {
    const shell = page('remote', { style: "body { background: url('https://example.com/b.png'); }" });
    let refused: unknown;
    await bundleCard(shell).catch((error: unknown) => {
      refused = error;
    });
    expect(String(refused)).to.contain(`the card ${shell} refers to the network`);
  });

  it('refuses a page whose shell embeds another document', async () => {
    const shell = page('frame', { shell: SHELL.replace('<p id="out"></p>', '<p id="out"></p><iframe></iframe>') });
    let refused: unknown;
    await bundleCard(shell).catch((error: unknown) => {
      refused = error;
    });
    expect(String(refused)).to.match(/refers to the network: .*<iframe/);
  });
});
