import { expect } from 'chai';
import { pageCardsOf } from '../../../scripts/build-cards';
import type { AppCard } from '../../../shared/contract/cards/app-card';
import { isPageCard } from '../../../shared/contract/cards/page-card';
import { buildToolDefinitions } from '../../../shared/contract/mcp/tool-definitions';
import { OPERATIONS, publishedOperations } from '../../../shared/contract/operations/registry';
import { EXTENDED_REGISTRY, REGISTRIES, TRANSLATION_CARD } from '../../support/extra-operations';

/** The page cards the published tools of `operations` name, each once: what the build must bundle. */
function namedPageCards(operations: Parameters<typeof publishedOperations>[0]): AppCard[] {
  const named = buildToolDefinitions(publishedOperations(operations)).flatMap((tool) => (tool.operation.card ? [tool.operation.card] : []));
  return [...new Set(named)].filter(isPageCard);
}

describe('the cards npm run build bundles (scripts/build-cards.ts; built with an operation’s own card in test/process/own-cards.test.ts)', () => {
  for (const registry of REGISTRIES)
    it(`${registry.name}: the build bundles each page card its published tools name, once, and no other`, () => {
      const expected = namedPageCards(registry.operations);
      expect(expected.length).to.be.greaterThan(0);
      expect(pageCardsOf(publishedOperations(registry.operations))).to.deep.equal(expected);
    });

  it('the trial’s translation card, its page beside the operation, is among the cards the extended registry has built', () => {
    expect(pageCardsOf(publishedOperations(EXTENDED_REGISTRY.operations))).to.include(TRANSLATION_CARD);
  });

  it('the registry’s own cards are found with no registry named (what npm run build runs)', () => {
    expect(pageCardsOf()).to.deep.equal(namedPageCards(OPERATIONS));
  });

  it('a card that answers its own HTML is served as it is, never bundled', () => {
    const own: AppCard = { uri: 'ui://connector/own.html', name: 'Own', description: 'Own.', html: async () => '<!doctype html>' };
    const [first, ...rest] = publishedOperations(OPERATIONS);
    const operations = [{ ...first, card: own }, ...rest];
    expect(operations.some((operation) => operation.card === own)).to.equal(true);
    expect(pageCardsOf(operations).map((card) => card.uri)).to.not.include(own.uri);
  });
});
