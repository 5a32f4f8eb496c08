import { expect } from 'chai';
import { pageCardsOf } from '../../../scripts/build-cards';
import type { AppCard } from '../../../shared/contract/cards/app-card';
import { JOB_CARD } from '../../../shared/contract/cards/job-card';
import { OPERATIONS, publishedOperations } from '../../../shared/contract/operations/registry';

describe('the cards npm run build bundles (scripts/build-cards.ts)', () => {
  it('the registry’s published tools name one page card, the job card, which the build bundles once', () => {
    expect(pageCardsOf()).to.deep.equal([JOB_CARD]);
  });

  it('a card that answers its own HTML is served as it is, never bundled', () => {
    const own: AppCard = { uri: 'ui://connector/own.html', name: 'Own', description: 'Own.', html: async () => '<!doctype html>' };
    const [first, ...rest] = publishedOperations(OPERATIONS);
    const operations = [{ ...first, card: own }, ...rest];
    expect(operations.some((operation) => operation.card === own)).to.equal(true);
    expect(pageCardsOf(operations).map((card) => card.uri)).to.not.include(own.uri);
  });
});
