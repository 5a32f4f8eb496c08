import path from 'node:path';
import { expect } from 'chai';
import {
  builtCardFile,
  type CardPageLoader,
  isPageCard,
  loadCardPagesWith,
  type PageCard,
  pageCard,
  readBuiltCard,
} from '../../../../../shared/contract/cards/page-card';

const SPEC = { uri: 'ui://connector/test-card.html', name: 'Test card', description: 'For a test.', page: 'cards/test/test.html' } as const;

describe('page cards (shared/contract/cards/page-card.ts)', () => {
  let previous: CardPageLoader;
  let reads: string[];

  /** A loader that records each read and answers the card's page, or fails while `failing` is set. */
  const recording =
    (failing: { on: boolean }): CardPageLoader =>
    async (card: PageCard) => {
      reads.push(card.uri);
      if (failing.on) throw new Error('no page');
      return `<!doctype html><title>${card.page}</title>`;
    };

  beforeEach(() => {
    reads = [];
    previous = loadCardPagesWith(recording({ on: false }));
  });
  afterEach(() => {
    loadCardPagesWith(previous);
  });

  it('a built card lies under dist/app-cards/ at its URI without ui://', () => {
    expect(builtCardFile({ uri: 'ui://connector/job-card.html' })).to.equal(path.join('app-cards', 'connector', 'job-card.html'));
  });

  it('a page card is told apart from a card that answers its HTML itself', () => {
    expect(isPageCard(pageCard(SPEC))).to.equal(true);
    expect(isPageCard({ uri: 'ui://connector/own.html', name: 'Own', description: 'Own.', html: async () => '' })).to.equal(false);
  });

  it('a page card is loaded once through the loader and then kept', async () => {
    const card = pageCard({ ...SPEC, uri: 'ui://connector/kept.html' });
    expect(await card.html()).to.equal('<!doctype html><title>cards/test/test.html</title>');
    expect(await card.html()).to.equal('<!doctype html><title>cards/test/test.html</title>');
    expect(reads).to.deep.equal(['ui://connector/kept.html']);
  });

  it('a failed load is not kept: the next read tries again', async () => {
    const failing = { on: true };
    loadCardPagesWith(recording(failing));
    const card = pageCard({ ...SPEC, uri: 'ui://connector/retried.html' });
    let refused: unknown;
    await card.html().catch((error: unknown) => {
      refused = error;
    });
    expect(String(refused)).to.contain('no page');
    failing.on = false;
    expect(await card.html()).to.contain('<!doctype html>');
    expect(reads).to.deep.equal(['ui://connector/retried.html', 'ui://connector/retried.html']);
  });

  it('a new loader forgets what the previous one read', async () => {
    const card = pageCard({ ...SPEC, uri: 'ui://connector/reloaded.html' });
    await card.html();
    loadCardPagesWith(async () => 'from the new loader');
    expect(await card.html()).to.equal('from the new loader');
  });

  it('from the sources no card is built: the production loader says to build, naming the page', async () => {
    let refused: unknown;
    await readBuiltCard(pageCard(SPEC)).catch((error: unknown) => {
      refused = error;
    });
    expect(String(refused)).to.contain('the card ui://connector/test-card.html is not built: run npm run build');
    expect(String(refused)).to.contain('cards/test/test.html');
  });
});
